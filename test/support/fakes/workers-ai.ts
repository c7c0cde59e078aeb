import { M2M100_LANGUAGES } from "../../../contracts/translation-languages";
import { chatTurns, DEFAULT_CHAT_REPLY, limitTokens, tokenCount, type ChatReply, type ChatTurn } from "./chat";
import { bgeOutput, BGE_MODELS } from "./embeddings";
import { FakeHttpServer, hasBearer, type RecordedRequest, type Reply } from "./fake-http";
import { fakeImage } from "./images";
import { fullText, HELLO_WORLD, type SpokenTranscript } from "./speech";
import { m2m100Output } from "./translation";

/**
 * A fake of Cloudflare's Workers AI REST API, written from Cloudflare's API reference:
 *
 *   POST /client/v4/accounts/{account_id}/ai/run/{model}   JSON input, bearer API token
 *
 * Every answer is Cloudflare's v4 envelope `{ result, success, errors: [{ code, message }],
 * messages }`. Models are registered by name with a function from input to `result`;
 * `@cf/openai/whisper-large-v3-turbo` is there from the start (input `{ audio: <base64>, language?,
 * initial_prompt? }`, result `{ transcription_info, text, word_count, segments: [{ …, words }], vtt }`), and so is
 * `@cf/black-forest-labs/flux-1-schnell` (input `{ prompt (1–2048 chars), steps? (1–8, default 4) }`,
 * result `{ image: <base64 JPEG, always 1024×1024> }`), and `@cf/meta/llama-3.1-8b-instruct` (input
 * `{ messages: [{ role, content }] }` or `{ prompt }`, with `max_tokens` (default 256), `temperature`
 * (0–5), `response_format` (`{ type: json_object | json_schema, json_schema? }`); result `{ response,
 * tool_calls, usage }`, where `response` is what `chatReply` (chat.ts) says, cut to max_tokens, or in
 * JSON mode that text parsed into an object, failing with "JSON Mode couldn't be met" when it is
 * not JSON), and the text embedding models `@cf/baai/bge-small-en-v1.5`, `bge-base-en-v1.5` and
 * `bge-large-en-v1.5` (input `{ text: string | string[] (each non-empty, at most 100), pooling?: mean |
 * cls }`, result `{ shape: [n, 384 | 768 | 1024], data, pooling }` with embeddings.ts's vectors),
 * and the translation model `@cf/meta/m2m100-1.2b` (input `{ text, source_lang? (default en),
 * target_lang }` in the model's ISO 639-1 codes, result `{ translated_text }`: translation.ts's
 * fake translation).
 * Another capability adds its model with `fake.model(name, (input) => …)`.
 */
export class FakeWorkersAI extends FakeHttpServer {
  /** What the whisper model hears in any audio (back to HELLO_WORLD on reset). */
  transcript: SpokenTranscript = HELLO_WORLD;
  /** What the llama model says (back to DEFAULT_CHAT_REPLY on reset). */
  chatReply: ChatReply = DEFAULT_CHAT_REPLY;
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
    this.chatReply = DEFAULT_CHAT_REPLY;
    this.models.clear();
    this.model("@cf/openai/whisper-large-v3-turbo", (input) => this.whisper(input));
    this.model("@cf/black-forest-labs/flux-1-schnell", (input) => this.flux(input));
    this.model("@cf/meta/llama-3.1-8b-instruct", (input) => this.llama(input));
    for (const name of Object.keys(BGE_MODELS)) this.model(name, (input) => bgeOutput(name, input));
    this.model("@cf/meta/m2m100-1.2b", (input) => m2m100Output(input, M2M100_LANGUAGES));
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
    if (input.initial_prompt !== undefined && typeof input.initial_prompt !== "string")
      throw new Error("Type mismatch of '/initial_prompt': a string is required");
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

  /** Text generation, scoped prompts (`messages`) or a raw `prompt`. */
  private llama(input: Record<string, unknown>): unknown {
    const { prompt, messages, max_tokens: maxTokens = 256, temperature, response_format: format } = input;
    if ((prompt === undefined) === (messages === undefined))
      throw new Error("AiError: Bad input: exactly one of 'prompt' or 'messages' is required");
    let turns: ChatTurn[];
    if (prompt !== undefined) {
      if (typeof prompt !== "string" || prompt === "") throw new Error("Type mismatch of '/prompt': a non-empty string is required");
      turns = [{ role: "user", content: prompt }];
    } else {
      turns = chatTurns(messages, ["system", "user", "assistant", "tool"]);
    }
    if (!Number.isInteger(maxTokens) || (maxTokens as number) < 1)
      throw new Error("Type mismatch of '/max_tokens': a positive integer is required");
    if (temperature !== undefined && (typeof temperature !== "number" || temperature < 0 || temperature > 5))
      throw new Error("Value of '/temperature' must be a number from 0 to 5");
    const type = (format as { type?: unknown } | undefined)?.type;
    if (format !== undefined && type !== "json_object" && type !== "json_schema")
      throw new Error("Value of '/response_format/type' must be json_object or json_schema");
    const { text } = limitTokens(this.chatReply(turns, { json: format !== undefined }), maxTokens as number);
    let response: unknown = text;
    if (format !== undefined) {
      try {
        response = JSON.parse(text);
      } catch {
        throw new Error("JSON Mode couldn't be met");
      }
    }
    const promptTokens = turns.reduce((n, t) => n + tokenCount(t.content), 0);
    return {
      response,
      tool_calls: [],
      usage: { prompt_tokens: promptTokens, completion_tokens: tokenCount(text), total_tokens: promptTokens + tokenCount(text) },
    };
  }
}
