import { openAsBlob } from "node:fs";
import { writeFile } from "node:fs/promises";
import { z } from "zod";
import { baseLanguage } from "../../../contracts/translation-languages";
import { StepFailure } from "../../../contracts/step-failure";
import { EngineHttpClient, type RetryPolicy } from "../http";
import { wavInfo } from "./audio";
import type { CloneVoiceSpec, CreateVoiceRequest, SynthesisEngine, SynthesizeRequest, Synthesized, VoiceSpec } from "./interface";
import { toolFailure } from "./profile";
import { makeReferenceClip } from "./reference";
import { SPEECH_SYNTHESIS_DEFAULT_MODELS } from "../../../contracts/model-refs";

/**
 * An OpenAI-compatible speech server: OpenAI itself, or a cloning TTS server on the GPU box.
 *
 *   POST /v1/audio/voices   multipart: name, audio_sample (the reference clip), consent (optional)
 *                           → { id, object: "audio.voice", name, … }
 *   POST /v1/audio/speech   JSON { model, input, voice: { id }, response_format: "wav", speed }
 *                           → the WAV bytes
 *
 * Cloning: `/v1/audio/speech` itself only names a voice, so the choice is how a voice comes to
 * exist. This backend follows OpenAI's own custom-voice API (create a voice from an audio sample,
 * then speak with `voice: { id }`), so the same code reaches OpenAI and any server implementing
 * that API; the server keeps the voice and the clip is uploaded once per `vce_`. OpenAI also wants
 * the id of a consent recording (`OPENAI_COMPAT_VOICE_CONSENT`, sent when set). Servers that only
 * map `voice` names to clips on their own disk (openedai-speech and the like) are not served:
 * they cannot clone a speaker they were not set up with.
 *
 * The API takes no language: the model reads it from the text. `speed` (0.25–4) carries the rate.
 */
export interface OpenAICompatibleSynthesisConfig {
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Languages the operator's model speaks (request codes, base codes match regions). */
  languages: readonly string[];
  consentId?: string;
  retry: RetryPolicy;
}

export const OPENAI_COMPATIBLE_TTS_DEFAULT_MODEL = SPEECH_SYNTHESIS_DEFAULT_MODELS["openai-compatible"];
/** XTTS-v2's languages, the usual cloning model behind such servers (OPENAI_COMPAT_TTS_LANGUAGES overrides). */
export const XTTS_LANGUAGES = [
  "ar",
  "cs",
  "de",
  "en",
  "es",
  "fr",
  "hi",
  "hu",
  "it",
  "ja",
  "ko",
  "nl",
  "pl",
  "pt",
  "ru",
  "tr",
  "zh",
] as const;
/** Audio bigger than this is not a speech segment. */
const MAX_AUDIO_BYTES = 64 * 1024 * 1024;

const VoiceAnswer = z.object({ id: z.string().min(1) }).loose();

export class OpenAICompatibleSynthesisEngine implements SynthesisEngine {
  readonly engine = "openai-compatible";
  private readonly http: EngineHttpClient;

  constructor(private readonly config: OpenAICompatibleSynthesisConfig) {
    this.http = new EngineHttpClient({
      engine: this.engine,
      model: config.model,
      baseUrl: config.baseUrl,
      headers: config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {},
      policy: config.retry,
    });
  }

  get model(): string {
    return this.config.model;
  }

  languages(): readonly string[] {
    return this.config.languages;
  }

  supportsLanguage(language: string): boolean {
    return this.config.languages.includes(baseLanguage(language)) || this.config.languages.includes(language);
  }

  async createVoice(req: CreateVoiceRequest): Promise<VoiceSpec> {
    const clip = await makeReferenceClip(req).catch((err: unknown) => {
      throw toolFailure(this, err);
    });
    const body = await this.http.multipart(
      "/v1/audio/voices",
      async () => {
        const form = new FormData();
        form.set("name", `dub-${clip.sha256.slice(0, 12)}`);
        form.set("audio_sample", await openAsBlob(clip.path, { type: "audio/wav" }), "reference.wav");
        if (this.config.consentId) form.set("consent", this.config.consentId);
        return form;
      },
      { signal: req.signal },
    );
    const parsed = VoiceAnswer.safeParse(body);
    if (!parsed.success) throw this.http.failure("answered a voice without an id");
    return {
      kind: "clone",
      engine: "openai-compatible",
      model: this.model,
      language: req.language,
      reference: { sha256: clip.sha256, durationSec: clip.durationSec, voiceId: parsed.data.id },
      matchedTo: clip.measured,
    };
  }

  async synthesize(req: SynthesizeRequest): Promise<Synthesized> {
    const voice = this.ownVoice(req.voice);
    const payload = JSON.stringify({
      model: this.model,
      input: req.text,
      voice: { id: voice.reference.voiceId },
      response_format: "wav",
      speed: Math.min(4, Math.max(0.25, req.rate ?? 1)),
    });
    const audio = await this.http.send(
      "/v1/audio/speech",
      { method: "POST", headers: { "content-type": "application/json", accept: "audio/wav" }, body: () => payload, signal: req.signal },
      async (res) => {
        const type = res.headers.get("content-type") ?? "";
        if (type.includes("json")) throw this.http.failure("answered JSON where audio was expected");
        if (Number(res.headers.get("content-length")) > MAX_AUDIO_BYTES)
          throw this.http.failure("answered more audio than a segment holds", false);
        return Buffer.from(await res.arrayBuffer());
      },
    );
    if (audio.toString("ascii", 0, 4) !== "RIFF") throw this.http.failure("answered audio that is not WAV");
    await writeFile(req.outPath, audio);
    return { path: req.outPath, durationSec: (await wavInfo(req.outPath)).durationSec };
  }

  private ownVoice(voice: VoiceSpec): CloneVoiceSpec & { reference: { voiceId: string } } {
    if (voice.kind !== "clone" || voice.engine !== this.engine || voice.reference.voiceId === undefined)
      throw new StepFailure(
        "processing_failed",
        `${this.engine} (${this.model}): cannot speak a ${voice.kind} voice made by ${voice.engine}`,
        false,
      );
    return voice as CloneVoiceSpec & { reference: { voiceId: string } };
  }
}
