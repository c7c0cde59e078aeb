import { FakeHttpServer, hasBearer, type RecordedRequest, type Reply } from "./fake-http";
import { fullText, HELLO_WORLD, whisperLanguageName, type SpokenTranscript } from "./speech";

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
 * `{ title, detail, status }`. `openai/whisper` (the version the speech engine defaults to) is
 * registered from the start; another capability adds its model with `fake.version(...)`.
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

export const WHISPER_VERSION = "8099696689d249cf8b122d833c36ac3f75505c666a395ca40ef26f68e7d3d16e";

export class FakeReplicate extends FakeHttpServer {
  /** What the whisper model hears in any audio (back to HELLO_WORLD on reset). */
  transcript: SpokenTranscript = HELLO_WORLD;
  readonly predictions = new Map<string, FakePrediction>();
  private readonly versions = new Map<string, { model: string; run: (input: Record<string, unknown>) => unknown }>();
  private plans: PredictionPlan[] = [];
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

  /** Registers a model version (also the latest version of `model` for the official-model route). */
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
    this.installDefaults();
  }

  private installDefaults(): void {
    this.transcript = HELLO_WORLD;
    this.versions.clear();
    this.version(WHISPER_VERSION, "openai/whisper", (input) => this.whisper(input));
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

  private withAuth(req: RecordedRequest, then: () => Reply): Reply {
    return hasBearer(req, this.apiToken) ? then() : this.error(401, "You did not pass a valid authentication token");
  }

  private createFromBody(req: RecordedRequest, model: string | undefined): Reply {
    return this.withAuth(req, () => {
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
      if (p.pollsLeft === 0 && sync) this.finish(p);
      return { status: 201, json: this.render(p) };
    });
  }

  private poll(id: string): Reply {
    const p = this.predictions.get(id);
    if (!p) return this.error(404, "Not found.");
    if (p.status === "starting" || p.status === "processing") {
      if (p.pollsLeft > 0) p.pollsLeft -= 1;
      if (p.pollsLeft === 0) this.finish(p);
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

  private finish(p: FakePrediction): void {
    p.status = p.plan.outcome;
    if (p.status === "succeeded") p.output = this.versions.get(p.version)!.run(p.input);
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

  /** openai/whisper: `{ detected_language, transcription, segments, translation, txt_file, srt_file }`. */
  private whisper(input: Record<string, unknown>): unknown {
    if (typeof input.audio !== "string" || input.audio === "") throw new Error("audio is required");
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
}
