import { FakeHttpServer, hasBearer, type RecordedRequest, type Reply } from "./fake-http";
import { fakeImage } from "./images";
import { fullText, HELLO_WORLD, type SpokenTranscript } from "./speech";

/**
 * A fake of Cloudflare's Workers AI REST API, written from Cloudflare's API reference:
 *
 *   POST /client/v4/accounts/{account_id}/ai/run/{model}   JSON input, bearer API token
 *
 * Every answer is Cloudflare's v4 envelope `{ result, success, errors: [{ code, message }],
 * messages }`. Models are registered by name with a function from input to `result`;
 * `@cf/openai/whisper-large-v3-turbo` is there from the start (input `{ audio: <base64>, language?
 * }`, result `{ transcription_info, text, word_count, segments: [{ …, words }], vtt }`), and so is
 * `@cf/black-forest-labs/flux-1-schnell` (input `{ prompt (1–2048 chars), steps? (1–8, default 4) }`,
 * result `{ image: <base64 JPEG, always 1024×1024> }`). Another capability adds its model with
 * `fake.model("@cf/baai/bge-base-en-v1.5", (input) => …)`.
 */
export class FakeWorkersAI extends FakeHttpServer {
  /** What the whisper model hears in any audio (back to HELLO_WORLD on reset). */
  transcript: SpokenTranscript = HELLO_WORLD;
  private readonly models = new Map<string, (input: Record<string, unknown>) => unknown>();
  private generated = 0;

  constructor(
    readonly accountId: string,
    readonly apiToken: string,
  ) {
    super();
    this.route("POST", "/client/v4/accounts/:account/ai/run/*model", (req, p) => this.run(req, p.account!, p.model!));
    this.installDefaults();
  }

  static start(opts: { accountId?: string; apiToken?: string } = {}): Promise<FakeWorkersAI> {
    return new FakeWorkersAI(opts.accountId ?? "acc123", opts.apiToken ?? "cf-token").listen();
  }

  /** Registers (or replaces) a model: `run` maps the request's JSON input to `result`, or throws a 400. */
  model(name: string, run: (input: Record<string, unknown>) => unknown): this {
    this.models.set(name, run);
    return this;
  }

  override reset(): void {
    super.reset();
    this.installDefaults();
  }

  private installDefaults(): void {
    this.transcript = HELLO_WORLD;
    this.models.clear();
    this.model("@cf/openai/whisper-large-v3-turbo", (input) => this.whisper(input));
    this.model("@cf/black-forest-labs/flux-1-schnell", (input) => this.flux(input));
  }

  protected errorBody(status: number, message: string): unknown {
    const code = status === 401 || status === 403 ? 10000 : status === 429 ? 3036 : status >= 500 ? 3043 : 5006;
    return { result: null, success: false, errors: [{ code, message }], messages: [] };
  }

  private async run(req: RecordedRequest, account: string, model: string): Promise<Reply> {
    if (!hasBearer(req, this.apiToken)) return this.error(401, "Authentication error");
    if (account !== this.accountId) return this.error(403, "Authentication error");
    const run = this.models.get(model);
    if (!run) return this.error(400, `No such model ${model} or task`);
    const input = req.json() as Record<string, unknown>;
    return { status: 200, json: { result: await run(input), success: true, errors: [], messages: [] } };
  }

  private whisper(input: Record<string, unknown>): unknown {
    if (typeof input.audio !== "string" || input.audio === "") throw new Error("Type mismatch of '/audio': a base64 string is required");
    const t = this.transcript;
    const words = t.segments.flatMap((s) => s.words);
    return {
      transcription_info: { language: t.language, language_probability: 0.98, duration: t.duration, duration_after_vad: t.duration },
      text: fullText(t),
      word_count: words.length,
      segments: t.segments.map((s) => ({
        start: s.start,
        end: s.end,
        text: s.text,
        temperature: 0,
        avg_logprob: s.avgLogprob ?? -0.3,
        compression_ratio: 1,
        no_speech_prob: 0.01,
        words: s.words.map((w) => ({ word: w.word, start: w.start, end: w.end })),
      })),
      vtt: "WEBVTT\n\n",
    };
  }

  /** flux-1-schnell takes no seed: each call samples anew, which the fake models by counting calls. */
  private async flux(input: Record<string, unknown>): Promise<unknown> {
    const { prompt, steps } = input;
    if (typeof prompt !== "string" || prompt.length === 0 || prompt.length > 2048)
      throw new Error("Type mismatch of '/prompt': a string of 1 to 2048 characters is required");
    if (steps !== undefined && (!Number.isInteger(steps) || (steps as number) < 1 || (steps as number) > 8))
      throw new Error("Value of '/steps' must be an integer from 1 to 8");
    const jpeg = await fakeImage(1024, 1024, "jpeg", `${prompt}#${++this.generated}`);
    return { image: jpeg.toString("base64") };
  }
}
