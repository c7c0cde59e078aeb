import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { DEFAULT_CHAT_REPLY, limitTokens, type ChatReply } from "./chat";
import { FakeHttpServer, hasBearer, type RecordedRequest, type Reply } from "./fake-http";
import { fakeImage } from "./images";
import { fullText, HELLO_WORLD, whisperLanguageName, type SpokenTranscript } from "./speech";
import { fakeSpeechWav } from "./synthesis";

/**
 * A fake of Replicate's predictions API, written from Replicate's HTTP API reference:
 *
 *   POST /v1/predictions                          { version, input }   community models
 *   POST /v1/models/{owner}/{name}/predictions    { input }            official models
 *   GET  /v1/predictions/{id}                                          poll
 *   POST /v1/predictions/{id}/cancel
 *
 * A prediction moves `starting` → `processing` → `succeeded` | `failed` | `canceled`. With
 * `Prefer: wait=n` (sync mode) a prediction that needs no polling is answered finished; one planned
 * to need polls comes back `starting` as if the wait ran out. Errors are problem details
 * `{ title, detail, status }`. `openai/whisper` (the version the speech engine defaults to; input
 * `{ audio, model, transcription, language, initial_prompt (a string), … }`) and
 * `black-forest-labs/flux-schnell` (input `{ prompt, aspect_ratio, num_outputs, output_format,
 * output_quality, seed, … }`, output a list of file URLs) are registered from the start, and so is
 * the official language model `meta/meta-llama-3-8b-instruct` (input `{ prompt, system_prompt,
 * max_tokens (default 512), temperature, … }`; what `chatReply` (chat.ts) makes of the system prompt
 * and the prompt, cut to max_tokens, as the array of string tokens a finished language-model
 * prediction carries); `lucataco/xtts-v2` (input `{ text, speaker (a file URI: data: or http(s)),
 * language (XTTS-v2's codes), cleanup_voice }`, output the URL of a WAV: synthesis.ts's buzz, 0.3 s
 * a word); and two pyannote diarization models: `collectiveai-team/speaker-diarization-3`
 * (input `{ audio, num_speakers, min_speakers, max_speakers }`, output inline `{ segments: [{ speaker,
 * start, stop }], speakers: { count, labels, embeddings } }` with `H:MM:SS.ffffff` times) and
 * `meronym/speaker-diarization` (input `{ audio }`, the same JSON as an `output.json` file URL);
 * both answer `speakerTurns`; and `ryan5453/demucs` (input `{ audio (a data: URI), model, stem, output_format,
 * clip_mode, … }`, output an object of file URLs by stem name: `{ <stem>, no_<stem> }` for one stem,
 * every stem of the model for `stem: "none"`), whose stems are real audio in the asked format at
 * 44.1 kHz stereo, as Demucs writes them: the input through ffmpeg, half of it the vocals, the other
 * half shared by the other stems, so the stems sum to the input (made once per input and kept
 * across resets, so a prediction answers within the transport tests' timeouts). Another capability
 * adds its model with `fake.version(...)`.
 *
 * Output files are served by a second server, `fake.files`, standing in for replicate.delivery: a
 * host of its own, public (no token), so tests see what the engine sends there and the API fake's
 * request log holds API calls only.
 */
export type PredictionStatus = "starting" | "processing" | "succeeded" | "failed" | "canceled";

export interface PredictionPlan {
  /** GETs it takes before the prediction ends (0: it ends within the create's Prefer: wait). */
  polls?: number;
  /** How it ends. Default succeeded. */
  outcome?: "succeeded" | "failed" | "canceled";
  /** The error of a failed prediction. */
  error?: string;
}

export interface FakePrediction {
  id: string;
  version: string;
  input: Record<string, unknown>;
  status: PredictionStatus;
  pollsLeft: number;
  plan: Required<Omit<PredictionPlan, "error">> & { error?: string };
  output: unknown;
}

/** A speaker turn the diarization models report (pyannote's own labels). */
export interface FakeSpeakerTurn {
  start: number;
  end: number;
  speaker: string;
}

/** What the diarization models hear by default: two speakers, pyannote labelling the first one heard SPEAKER_01. */
export const DEFAULT_SPEAKER_TURNS: readonly FakeSpeakerTurn[] = [
  { start: 0.5, end: 3.25, speaker: "SPEAKER_01" },
  { start: 3.5, end: 6, speaker: "SPEAKER_00" },
  { start: 6.25, end: 8, speaker: "SPEAKER_01" },
];

export const SPEAKER_DIARIZATION_3_VERSION = "6e29843b8c1b751ec384ad96d3566af2392046465152fef3cc22ad701090b64c";
export const MERONYM_DIARIZATION_VERSION = "64b78c82f74d78164b49178443c819445f5dca2c51c8ec374783d49382342119";

export const DEMUCS_VERSION = "5a7041cc9b82e5a558fea6b3d7b12dea89625e89da33f0447bd727c2d0ab9e77";
/** The stems each Demucs model separates, and the share of the input the fake puts in each. */
const DEMUCS_SOURCES: Record<string, readonly string[]> = {
  htdemucs: ["drums", "bass", "other", "vocals"],
  htdemucs_ft: ["drums", "bass", "other", "vocals"],
  htdemucs_6s: ["drums", "bass", "other", "vocals", "guitar", "piano"],
  hdemucs_mmi: ["drums", "bass", "other", "vocals"],
  mdx_q: ["drums", "bass", "other", "vocals"],
  mdx_extra_q: ["drums", "bass", "other", "vocals"],
};
const DEMUCS_CODECS: Record<string, { codec: string[]; type: string }> = {
  flac: { codec: ["-c:a", "flac"], type: "audio/flac" },
  wav: { codec: ["-c:a", "pcm_s24le"], type: "audio/wav" },
  mp3: { codec: ["-c:a", "libmp3lame", "-b:a", "320k"], type: "audio/mpeg" },
};

export const WHISPER_VERSION = "8099696689d249cf8b122d833c36ac3f75505c666a395ca40ef26f68e7d3d16e";
export const FLUX_SCHNELL_VERSION = "c846a69991daf4c0e5d016514849d14ee5b2e6846ce6b9d6f21369e564cfe51e";
/** Official models are run by name; this stands for the version the fake's predictions report. */
export const LLAMA3_8B_INSTRUCT_VERSION = "fake-meta-llama-3-8b-instruct";
export const XTTS_V2_VERSION = "49ff6cfa14bd4e7f80f62e2279f82f23dfc2e7970f825f8db5599f8a6213c009";
const XTTS_LANGUAGE_CODES = ["en", "es", "fr", "de", "it", "pt", "pl", "tr", "ru", "nl", "cs", "ar", "zh-cn", "ja", "hu", "ko", "hi"];

/** flux-schnell's sizes at its default 1 megapixel, per aspect ratio. */
export const FLUX_SIZES: Record<string, [number, number]> = {
  "1:1": [1024, 1024],
  "16:9": [1344, 768],
  "21:9": [1536, 640],
  "3:2": [1216, 832],
  "2:3": [832, 1216],
  "4:5": [896, 1088],
  "5:4": [1088, 896],
  "3:4": [896, 1152],
  "4:3": [1152, 896],
  "9:16": [768, 1344],
  "9:21": [640, 1536],
};

/** replicate.delivery: files by path, no authentication. */
export class FakeFileHost extends FakeHttpServer {
  readonly files = new Map<string, { body: Buffer; type: string }>();

  constructor() {
    super();
    this.route("GET", "/*path", (_req, p) => {
      const file = this.files.get(`/${p.path}`);
      return file ? { status: 200, body: file.body, headers: { "content-type": file.type } } : this.error(404, "Not Found");
    });
  }

  /** Stores a file and returns its URL. */
  put(path: string, body: Buffer, type: string): string {
    this.files.set(path, { body, type });
    return `${this.url}${path}`;
  }

  override reset(): void {
    super.reset();
    this.files.clear();
  }

  protected errorBody(_status: number, message: string): unknown {
    return message;
  }
}

export class FakeReplicate extends FakeHttpServer {
  /** What the whisper model hears in any audio (back to HELLO_WORLD on reset). */
  transcript: SpokenTranscript = HELLO_WORLD;
  /** Who speaks when, for the diarization models (back to DEFAULT_SPEAKER_TURNS on reset). */
  speakerTurns: readonly FakeSpeakerTurn[] = DEFAULT_SPEAKER_TURNS;
  /** What the language model says (back to DEFAULT_CHAT_REPLY on reset). */
  chatReply: ChatReply = DEFAULT_CHAT_REPLY;
  readonly predictions = new Map<string, FakePrediction>();
  private readonly versions = new Map<string, { model: string; run: (input: Record<string, unknown>) => unknown }>();
  readonly files = new FakeFileHost();
  private plans: PredictionPlan[] = [];
  /** Demucs stems by input: a pure function of it, worth keeping across resets (ffmpeg takes a while). */
  private readonly demucsStems = new Map<string, { name: string; body: Buffer; type: string; ext: string }[]>();
  private created = 0;

  constructor(readonly apiToken: string) {
    super();
    this.route("POST", "/v1/predictions", (req) => this.createFromBody(req, undefined));
    this.route("POST", "/v1/models/:owner/:name/predictions", (req, p) => this.createFromBody(req, `${p.owner}/${p.name}`));
    this.route("GET", "/v1/predictions/:id", (req, p) => this.withAuth(req, () => this.poll(p.id!)));
    this.route("POST", "/v1/predictions/:id/cancel", (req, p) => this.withAuth(req, () => this.cancel(p.id!)));
    this.installDefaults();
  }

  static start(opts: { apiToken?: string } = {}): Promise<FakeReplicate> {
    return new FakeReplicate(opts.apiToken ?? "r8-token").listen();
  }

  override async listen(): Promise<this> {
    await this.files.listen();
    return super.listen();
  }

  override async close(): Promise<void> {
    await Promise.all([super.close(), this.files.close()]);
  }

  /** Registers a model version (also the latest version of `model` for the official-model route); `run` may return a promise. */
  version(id: string, model: string, run: (input: Record<string, unknown>) => unknown): this {
    this.versions.set(id, { model, run });
    return this;
  }

  /** How the next predictions behave, one plan each; afterwards they succeed at once. */
  plan(...plans: PredictionPlan[]): void {
    this.plans.push(...plans);
  }

  override reset(): void {
    super.reset();
    this.plans = [];
    this.predictions.clear();
    this.files.reset();
    this.installDefaults();
  }

  private installDefaults(): void {
    this.transcript = HELLO_WORLD;
    this.versions.clear();
    this.version(WHISPER_VERSION, "openai/whisper", (input) => this.whisper(input));
    this.version(FLUX_SCHNELL_VERSION, "black-forest-labs/flux-schnell", (input) => this.fluxSchnell(input));
    this.chatReply = DEFAULT_CHAT_REPLY;
    this.version(LLAMA3_8B_INSTRUCT_VERSION, "meta/meta-llama-3-8b-instruct", (input) => this.llama3(input));
    this.speakerTurns = DEFAULT_SPEAKER_TURNS;
    this.version(SPEAKER_DIARIZATION_3_VERSION, "collectiveai-team/speaker-diarization-3", (input) => this.speakerDiarization3(input));
    this.version(MERONYM_DIARIZATION_VERSION, "meronym/speaker-diarization", (input) => this.meronymDiarization(input));
    this.version(XTTS_V2_VERSION, "lucataco/xtts-v2", (input) => this.xtts(input));
    this.version(DEMUCS_VERSION, "ryan5453/demucs", (input) => this.demucs(input));
  }

  protected errorBody(status: number, message: string): unknown {
    const title =
      status === 401
        ? "Unauthenticated"
        : status === 429
          ? "Request was throttled"
          : status === 422
            ? "Unprocessable Entity"
            : status >= 500
              ? "Internal Server Error"
              : "Bad Request";
    return { title, detail: message, status };
  }

  private async withAuth(req: RecordedRequest, then: () => Reply | Promise<Reply>): Promise<Reply> {
    return hasBearer(req, this.apiToken) ? then() : this.error(401, "You did not pass a valid authentication token");
  }

  private createFromBody(req: RecordedRequest, model: string | undefined): Promise<Reply> {
    return this.withAuth(req, async () => {
      const body = req.json() as { version?: unknown; input?: unknown };
      const version = model
        ? [...this.versions].find(([, v]) => v.model === model)?.[0]
        : typeof body.version === "string"
          ? body.version
          : undefined;
      if (!version || !this.versions.has(version))
        return this.error(422, model ? `model ${model} not found` : "Invalid version or not permitted");
      if (typeof body.input !== "object" || body.input === null) return this.error(422, "input is required");
      const plan = this.plans.shift() ?? {};
      const p: FakePrediction = {
        id: `fake${++this.created}`,
        version,
        input: body.input as Record<string, unknown>,
        status: "starting",
        pollsLeft: plan.polls ?? 0,
        plan: { polls: plan.polls ?? 0, outcome: plan.outcome ?? "succeeded", ...(plan.error ? { error: plan.error } : {}) },
        output: null,
      };
      this.predictions.set(p.id, p);
      const sync = /^wait(=\d+)?$/.test((req.headers.prefer ?? "").trim());
      if (p.pollsLeft === 0 && sync) await this.finish(p);
      return { status: 201, json: this.render(p) };
    });
  }

  private async poll(id: string): Promise<Reply> {
    const p = this.predictions.get(id);
    if (!p) return this.error(404, "Not found.");
    if (p.status === "starting" || p.status === "processing") {
      if (p.pollsLeft > 0) p.pollsLeft -= 1;
      if (p.pollsLeft === 0) await this.finish(p);
      else p.status = "processing";
    }
    return { status: 200, json: this.render(p) };
  }

  private cancel(id: string): Reply {
    const p = this.predictions.get(id);
    if (!p) return this.error(404, "Not found.");
    if (p.status === "starting" || p.status === "processing") p.status = "canceled";
    return { status: 200, json: this.render(p) };
  }

  private async finish(p: FakePrediction): Promise<void> {
    if (p.plan.outcome === "succeeded") p.output = await this.versions.get(p.version)!.run(p.input);
    p.status = p.plan.outcome;
  }

  private render(p: FakePrediction): unknown {
    const done = p.status === "succeeded" || p.status === "failed" || p.status === "canceled";
    const at = new Date(0).toISOString();
    return {
      id: p.id,
      model: this.versions.get(p.version)!.model,
      version: p.version,
      input: p.input,
      logs: "",
      output: p.status === "succeeded" ? p.output : null,
      data_removed: false,
      error: p.status === "failed" ? (p.plan.error ?? "prediction failed") : null,
      status: p.status,
      created_at: at,
      ...(p.status !== "starting" ? { started_at: at } : {}),
      ...(done ? { completed_at: at, metrics: { predict_time: 0.5 } } : {}),
      urls: {
        get: `${this.url}/v1/predictions/${p.id}`,
        cancel: `${this.url}/v1/predictions/${p.id}/cancel`,
        web: `https://replicate.com/p/${p.id}`,
      },
    };
  }

  /** meta/meta-llama-3-8b-instruct: the reply as streamed tokens (a word with its leading space each). */
  private llama3(input: Record<string, unknown>): unknown {
    const { prompt, system_prompt: system = "You are a helpful assistant.", max_tokens: maxTokens = 512, temperature = 0.6 } = input;
    if (typeof prompt !== "string" || prompt === "") throw new Error("prompt is required");
    if (typeof system !== "string") throw new Error("system_prompt must be a string");
    if (!Number.isInteger(maxTokens) || (maxTokens as number) < 1) throw new Error("max_tokens must be a positive integer");
    if (typeof temperature !== "number" || temperature < 0) throw new Error("temperature must be a number >= 0");
    const turns = [...(system ? [{ role: "system", content: system }] : []), { role: "user", content: prompt }];
    const { text } = limitTokens(this.chatReply(turns, { json: false }), maxTokens as number);
    return text.match(/\s*\S+|\s+$/g) ?? [];
  }

  /** openai/whisper: `{ detected_language, transcription, segments, translation, txt_file, srt_file }`. */
  private whisper(input: Record<string, unknown>): unknown {
    if (typeof input.audio !== "string" || input.audio === "") throw new Error("audio is required");
    // "optional text to provide as a prompt for the first window"
    if (input.initial_prompt !== undefined && typeof input.initial_prompt !== "string") throw new Error("initial_prompt must be a string");
    const t = this.transcript;
    return {
      detected_language: whisperLanguageName(t.language),
      transcription: fullText(t),
      segments: t.segments.map((s, id) => ({
        id,
        seek: 0,
        start: s.start,
        end: s.end,
        text: ` ${s.text}`,
        tokens: [50364, 2425],
        temperature: 0,
        avg_logprob: s.avgLogprob ?? -0.3,
        compression_ratio: 1,
        no_speech_prob: 0.01,
      })),
      translation: null,
      txt_file: null,
      srt_file: null,
    };
  }

  /** collectiveai-team/speaker-diarization-3: pyannote 3.1 with optional speaker bounds, answered inline. */
  private speakerDiarization3(input: Record<string, unknown>): unknown {
    requireAudio(input);
    const bound = (name: string) => {
      const v = input[name];
      if (v !== undefined && v !== null && (!Number.isInteger(v) || (v as number) < 1))
        throw new Error(`${name} must be a positive integer`);
      return v as number | undefined;
    };
    const [num, min, max] = [bound("num_speakers"), bound("min_speakers"), bound("max_speakers")];
    if (min !== undefined && max !== undefined && min > max) throw new Error("min_speakers must not exceed max_speakers");
    // Like pyannote, at most `num_speakers` (else `max_speakers`) labels: later voices go to the last one allowed.
    const limit = num ?? max ?? Infinity;
    const labels: string[] = [];
    const turns = this.speakerTurns.map((t) => {
      if (!labels.includes(t.speaker) && labels.length < limit) labels.push(t.speaker);
      return { ...t, speaker: labels.includes(t.speaker) ? t.speaker : labels.at(-1)! };
    });
    return pyannoteJson(turns);
  }

  /** meronym/speaker-diarization: pyannote 2, no bounds, the JSON as a file on the delivery host. */
  private meronymDiarization(input: Record<string, unknown>): string {
    requireAudio(input);
    const letters = new Map<string, string>();
    const turns = this.speakerTurns.map((t) => {
      if (!letters.has(t.speaker)) letters.set(t.speaker, String.fromCharCode(65 + letters.size));
      return { ...t, speaker: letters.get(t.speaker)! };
    });
    const body = Buffer.from(JSON.stringify(pyannoteJson(turns)));
    return this.files.put(`/pbxt/diar${this.files.files.size + 1}/output.json`, body, "application/json");
  }

  /** lucataco/xtts-v2: the URL of a WAV speaking `text`. */
  private xtts(input: Record<string, unknown>): unknown {
    const { text, speaker, language = "en", cleanup_voice: cleanup = false } = input;
    if (typeof text !== "string" || text === "") throw new Error("text is required");
    if (typeof speaker !== "string" || !/^(data:audio\/[\w.+-]+;base64,.+|https?:\/\/.+)$/s.test(speaker))
      throw new Error("speaker must be an audio file URI");
    if (typeof language !== "string" || !XTTS_LANGUAGE_CODES.includes(language))
      throw new Error(`language ${String(language)} is not supported`);
    if (typeof cleanup !== "boolean") throw new Error("cleanup_voice must be a boolean");
    return this.files.put(`/xezq/tts${this.files.files.size + 1}/output.wav`, fakeSpeechWav(text), "audio/wav");
  }

  /** ryan5453/demucs: stems as file URLs (see the class comment for what is in them); public so a test can register a variant. */
  async demucs(input: Record<string, unknown>): Promise<Record<string, string>> {
    const { audio, model = "htdemucs", stem = "none", output_format: format = "mp3", clip_mode: clip = "rescale" } = input;
    const data = typeof audio === "string" ? /^data:audio\/[\w.+-]+;base64,(.+)$/s.exec(audio) : null;
    // The real model also fetches http(s) URLs; the engine sends data URIs only.
    if (!data) throw new Error("audio must be a data URI");
    const sources = typeof model === "string" ? DEMUCS_SOURCES[model] : undefined;
    if (!sources) throw new Error(`model must be one of ${Object.keys(DEMUCS_SOURCES).join(", ")}`);
    if (typeof stem !== "string" || (stem !== "none" && !sources.includes(stem)))
      throw new Error(`stem ${String(stem)} is not a source of ${model}`);
    const out = typeof format === "string" ? DEMUCS_CODECS[format] : undefined;
    if (!out) throw new Error("output_format must be mp3, flac or wav");
    if (clip !== "rescale" && clip !== "clamp" && clip !== "none") throw new Error("clip_mode must be rescale, clamp or none");
    const shares = new Map(sources.map((s) => [s, s === "vocals" ? 0.5 : 0.5 / (sources.length - 1)]));
    const wanted = stem === "none" ? [...shares] : [[stem, shares.get(stem)!] as const, [`no_${stem}`, 1 - shares.get(stem)!] as const];
    const key = JSON.stringify([data[1], model, stem, format]);
    const stems = this.demucsStems.get(key) ?? (await this.separate(data[1]!, wanted, String(format), out));
    this.demucsStems.set(key, stems);
    const id = `demucs${this.files.files.size + 1}`;
    return Object.fromEntries(stems.map((st) => [st.name, this.files.put(`/pbxt/${id}/${st.name}.${st.ext}`, st.body, st.type)]));
  }

  private async separate(
    base64: string,
    wanted: readonly (readonly [string, number])[],
    format: string,
    out: { codec: string[]; type: string },
  ) {
    const dir = await mkdtemp(path.join(os.tmpdir(), "fake-demucs-"));
    try {
      const inputFile = path.join(dir, "input");
      await writeFile(inputFile, Buffer.from(base64, "base64"));
      const stems: { name: string; body: Buffer; type: string; ext: string }[] = [];
      for (const [name, share] of wanted) {
        const file = path.join(dir, `${name}.${format}`);
        const args = ["-i", inputFile, "-af", `volume=${share}`, "-ar", "44100", "-ac", "2", ...out.codec, file];
        await run("ffmpeg", ["-hide_banner", "-nostdin", "-y", "-loglevel", "error", ...args]);
        stems.push({ name, body: await readFile(file), type: out.type, ext: format });
      }
      return stems;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** black-forest-labs/flux-schnell: a list of `num_outputs` file URLs at the aspect ratio's size. */
  private async fluxSchnell(input: Record<string, unknown>): Promise<unknown> {
    const { prompt, aspect_ratio = "1:1", output_format = "webp", num_outputs = 1, seed } = input;
    if (typeof prompt !== "string" || prompt === "") throw new Error("prompt is required");
    const size = typeof aspect_ratio === "string" ? FLUX_SIZES[aspect_ratio] : undefined;
    if (!size) throw new Error(`aspect_ratio must be one of ${Object.keys(FLUX_SIZES).join(", ")}`);
    if (output_format !== "webp" && output_format !== "jpg" && output_format !== "png")
      throw new Error("output_format must be webp, jpg or png");
    if (!Number.isInteger(num_outputs) || (num_outputs as number) < 1 || (num_outputs as number) > 4)
      throw new Error("num_outputs must be 1 to 4");
    if (seed !== undefined && !Number.isInteger(seed)) throw new Error("seed must be an integer");
    const id = `out${this.files.files.size + 1}`;
    const format = output_format === "jpg" ? "jpeg" : output_format;
    const urls: string[] = [];
    for (let i = 0; i < (num_outputs as number); i++) {
      const body = await fakeImage(size[0], size[1], format, `${prompt}#${String(seed ?? Math.random())}#${i}`);
      urls.push(this.files.put(`/xezq/${id}/out-${i}.${output_format}`, body, `image/${format}`));
    }
    return urls;
  }
}

const run = promisify(execFile);

function requireAudio(input: Record<string, unknown>): void {
  if (typeof input.audio !== "string" || !/^(data:audio\/[\w.+-]+;base64,.+|https?:\/\/.+)$/s.test(input.audio))
    throw new Error("audio must be a URL or a data URI");
}

/** `{ segments, speakers }` as the pyannote cog models write it, times as `H:MM:SS.ffffff`. */
function pyannoteJson(turns: readonly FakeSpeakerTurn[]): unknown {
  const labels = [...new Set(turns.map((t) => t.speaker))];
  return {
    segments: turns.map((t) => ({ speaker: t.speaker, start: clock(t.start), stop: clock(t.end) })),
    speakers: {
      count: labels.length,
      labels,
      embeddings: Object.fromEntries(labels.map((l, i) => [l, new Array<number>(4).fill(i / 10)])),
    },
  };
}

function clock(sec: number): string {
  const h = Math.floor(sec / 3600);
  const m = Math.floor((sec % 3600) / 60);
  return `${h}:${String(m).padStart(2, "0")}:${(sec % 60).toFixed(6).padStart(9, "0")}`;
}
