import { rename, writeFile } from "node:fs/promises";
import { baseLanguage } from "../../../contracts/translation-languages";
import { StepFailure } from "../../../contracts/step-failure";
import { runToolOk } from "../../media/spawn";
import type { EngineHttpClient, RetryPolicy } from "../http";
import { type OutputFileHosts, outputFetchOf } from "../output-files";
import { replicateClient, replicateOutputBytes, type ReplicatePredictions } from "../replicate-predictions";
import { wavInfo } from "./audio";
import type { CloneVoiceSpec, CreateVoiceRequest, SynthesisEngine, SynthesizeRequest, Synthesized, VoiceSpec } from "./interface";
import { XTTS_LANGUAGES } from "./openai-compatible";
import { toolFailure } from "./profile";
import { makeReferenceClip, referenceDataUri } from "./reference";
import { SPEECH_SYNTHESIS_DEFAULT_MODELS } from "../../../contracts/model-refs";

/**
 * Coqui XTTS-v2 on Replicate (`lucataco/xtts-v2`): input `{ text, speaker, language,
 * cleanup_voice }`, output the URL of a WAV. The speaker's reference clip goes inline as a data
 * URI with every prediction, as the speech engine sends its audio (reference.ts keeps it under
 * ~440 KB); Replicate keeps nothing between predictions, so the clip's path comes back with each
 * `synthesize` and is checked against the digest the voice recorded.
 *
 * The model has no speed input: a rate other than 1 is applied after synthesis as a tempo change
 * by rubberband (R3, pitch kept). `zh` is sent as `zh-cn`, XTTS-v2's name for Mandarin.
 * Output files live on another host (replicate.delivery), fetched as engines/output-files.ts fetches
 * any output: https, delivery hosts only, address-checked, no redirect, capped, without the API token.
 */
export interface ReplicateSynthesisConfig {
  apiToken: string;
  /** `owner/name:version`, or `owner/name` for an official model. */
  model: string;
  baseUrl: string;
  pollIntervalMs: number;
  retry: RetryPolicy;
  rubberband: string;
  /** Where output files may come from. */
  files: OutputFileHosts;
}

/** XTTS-v2 (contracts/model-refs.ts: the Worker names it among the models a dubbing may choose). */
export const REPLICATE_TTS_DEFAULT_MODEL = SPEECH_SYNTHESIS_DEFAULT_MODELS.replicate;
const MAX_AUDIO_BYTES = 64 * 1024 * 1024;

export class ReplicateSynthesisEngine implements SynthesisEngine {
  readonly engine = "replicate";
  private readonly http: EngineHttpClient;
  private readonly predictions: ReplicatePredictions;

  constructor(private readonly config: ReplicateSynthesisConfig) {
    ({ http: this.http, predictions: this.predictions } = replicateClient(this.engine, config));
  }

  get model(): string {
    return this.config.model;
  }

  languages(): readonly string[] {
    return XTTS_LANGUAGES;
  }

  supportsLanguage(language: string): boolean {
    return (XTTS_LANGUAGES as readonly string[]).includes(baseLanguage(language));
  }

  async createVoice(req: CreateVoiceRequest): Promise<VoiceSpec> {
    if (!this.supportsLanguage(req.language))
      throw new StepFailure("processing_failed", `replicate (${this.model}): XTTS-v2 does not speak ${req.language}`, false);
    try {
      const clip = await makeReferenceClip(req);
      return {
        kind: "clone",
        engine: "replicate",
        model: this.model,
        language: req.language,
        reference: { sha256: clip.sha256, durationSec: clip.durationSec },
        matchedTo: clip.measured,
      };
    } catch (err) {
      throw toolFailure(this, err);
    }
  }

  async synthesize(req: SynthesizeRequest): Promise<Synthesized> {
    const voice = this.ownVoice(req.voice);
    const speaker = await referenceDataUri(
      voice,
      req.referencePath,
      (m) => new StepFailure("processing_failed", `replicate (${this.model}): ${m}`, false),
    );
    const language = baseLanguage(req.language) === "zh" ? "zh-cn" : baseLanguage(req.language);
    const prediction = await this.predictions.run({ text: req.text, speaker, language, cleanup_voice: false }, req.signal);
    const audio = await this.download(typeof prediction.output === "string" ? prediction.output : undefined, req.signal);
    if (audio.toString("ascii", 0, 4) !== "RIFF") throw this.http.failure("output is not a WAV file");
    await writeFile(req.outPath, audio);
    const rate = req.rate ?? 1;
    try {
      if (Math.abs(rate - 1) > 0.005) {
        const tempo = `${req.outPath}.tempo.wav`;
        await runToolOk(this.config.rubberband, ["-q", "-3", "-T", rate.toFixed(4), req.outPath, tempo], { signal: req.signal });
        await rename(tempo, req.outPath);
      }
      return { path: req.outPath, durationSec: (await wavInfo(req.outPath)).durationSec };
    } catch (err) {
      throw toolFailure(this, err);
    }
  }

  private ownVoice(voice: VoiceSpec): CloneVoiceSpec {
    if (voice.kind !== "clone" || voice.engine !== this.engine)
      throw new StepFailure(
        "processing_failed",
        `${this.engine} (${this.model}): cannot speak a ${voice.kind} voice made by ${voice.engine}`,
        false,
      );
    return voice;
  }

  private download(ref: string | undefined, signal: AbortSignal): Promise<Buffer> {
    const outputs = outputFetchOf(
      { engine: this.engine, model: this.model, retry: this.config.retry, files: this.config.files },
      this.http,
    );
    return replicateOutputBytes(ref, "audio", outputs, { signal, maxBytes: MAX_AUDIO_BYTES });
  }
}
