import type { AiBinding } from "../../../contracts/embeddings/workers-ai";
import { FakeHttpServer, hasBearer, type RecordedRequest, type Reply } from "./fake-http";
import { lexicalRerankScore } from "./lexical-vectors";

/**
 * Fakes of the hosted rerankers, and what their stand-in cross-encoder answers.
 *
 * The stand-in model: its logit is `8 · share − 4`, where share is the part of the query's distinct
 * words the text contains (lexicalRerankScore, as the Workers tests' reranker), and its score is the
 * logit's sigmoid, in (0, 1) as a cross-encoder's normalised score is. Deterministic, independent of
 * the other texts of a call, and a text that shares the query's words outranks one that does not.
 */
export function fakeRerankLogit(query: string, text: string): number {
  return 8 * lexicalRerankScore(query, text) - 4;
}

export function fakeRerankScore(query: string, text: string): number {
  return 1 / (1 + Math.exp(-fakeRerankLogit(query, text)));
}

/** One entry of TEI's answer. */
export interface TeiRank {
  index: number;
  score: number;
  text?: string;
}

/**
 * A fake of Hugging Face text-embeddings-inference serving a reranker (router/src/http/server.rs,
 * its OpenAPI document), on loopback:
 *
 *   POST /rerank  { query: string, texts: string[], raw_scores?: false, return_text?: false, truncate?,
 *                   truncation_direction? } → 200 [{ index, score, text? }]
 *
 * sorted by score, best first, as TEI sorts (ascending, stable, then reversed: equal scores come
 * highest index first). `raw_scores` answers the logit instead of its sigmoid; `return_text` adds
 * each text. Refusals as TEI answers them:
 *   - `texts` empty: 400 { error: "`texts` cannot be empty", error_type: "Empty" };
 *   - more texts than `--max-client-batch-size` (default 32): 413 { error: "batch size N > maximum
 *     allowed batch size 32", error_type: "Validation" };
 *   - a body that is not JSON: 400, and one of the wrong shape: 422, both plain text (axum's Json
 *     extractor, before TEI's handler runs);
 *   - with `--api-key`, a request without `authorization: Bearer <key>`: 401 with an empty body.
 * Scripted faults (fake-http.ts) answer TEI's error body `{ error, error_type }` with the type TEI
 * gives that status (429 Overloaded, 503 Unhealthy, 424 Backend, 413 Validation, 422 Tokenizer,
 * 400 Empty). `tamper(fn)` rewrites the ranking before it is sent (malformed answers, until reset).
 */
export class FakeTei extends FakeHttpServer {
  private tampering: ((ranks: TeiRank[]) => unknown) | null = null;

  constructor(
    readonly apiKey: string | undefined,
    readonly maxClientBatchSize = 32,
  ) {
    super();
    this.route("POST", "/rerank", (req) => this.rerank(req));
  }

  static start(opts: { apiKey?: string; maxClientBatchSize?: number } = {}): Promise<FakeTei> {
    return new FakeTei(opts.apiKey, opts.maxClientBatchSize).listen();
  }

  /** The `{ query, texts }` of every /rerank request so far. */
  get reranks(): { query: string; texts: string[] }[] {
    return this.requests.filter((r) => r.path === "/rerank").map((r) => r.json() as { query: string; texts: string[] });
  }

  /** Answers `fn(ranking)` instead of the ranking, until reset. */
  tamper(fn: (ranks: TeiRank[]) => unknown): void {
    this.tampering = fn;
  }

  override reset(): void {
    super.reset();
    this.tampering = null;
  }

  protected errorBody(status: number, message: string): unknown {
    return { error: message, error_type: TEI_ERROR_TYPES[status] ?? "Backend" };
  }

  private rerank(req: RecordedRequest): Reply {
    if (this.apiKey !== undefined && !hasBearer(req, this.apiKey)) return { status: 401, text: "" };
    let body: unknown;
    try {
      body = req.json();
    } catch (err) {
      return { status: 400, text: `Failed to parse the request body as JSON: ${(err as Error).message}` };
    }
    const { query, texts, raw_scores: raw = false, return_text: returnText = false } = (body ?? {}) as Record<string, unknown>;
    const shapeError = (what: string): Reply => ({
      status: 422,
      text: `Failed to deserialize the JSON body into the target type: ${what}`,
    });
    if (typeof query !== "string") return shapeError("missing field `query` or not a string");
    if (!Array.isArray(texts) || !texts.every((t) => typeof t === "string")) return shapeError("`texts` is not a sequence of strings");
    if (typeof raw !== "boolean" || typeof returnText !== "boolean") return shapeError("`raw_scores` and `return_text` are booleans");
    if (texts.length === 0) return this.error(400, "`texts` cannot be empty");
    if (texts.length > this.maxClientBatchSize)
      return this.error(413, `batch size ${texts.length} > maximum allowed batch size ${this.maxClientBatchSize}`);

    const ranks: TeiRank[] = (texts as string[]).map((text, index) => ({
      index,
      score: raw ? fakeRerankLogit(query, text) : fakeRerankScore(query, text),
      ...(returnText ? { text } : {}),
    }));
    ranks.sort((a, b) => a.score - b.score).reverse();
    return { status: 200, json: this.tampering ? this.tampering(ranks) : ranks };
  }
}

const TEI_ERROR_TYPES: Readonly<Record<number, string>> = {
  400: "Empty",
  413: "Validation",
  422: "Tokenizer",
  424: "Backend",
  429: "Overloaded",
  503: "Unhealthy",
};

/** Workers AI's reranking models. */
export const WORKERS_AI_RERANK_MODEL = "@cf/baai/bge-reranker-base";

/** One entry of the Workers AI reranker's `response`. */
export interface WorkersAiRank {
  id: number;
  score: number;
}

/**
 * A stand-in for the Worker's AI binding running `@cf/baai/bge-reranker-base`, as Cloudflare's model
 * schema describes it (cloudflare-docs src/content/workers-ai-models/bge-reranker-base.json):
 *
 *   input   { query: string (minLength 1), contexts: [{ text: string (minLength 1) }], top_k?: integer ≥ 1 }
 *   output  { response: [{ id, score }] }   the top_k best (all without top_k), best first
 *
 * with the stand-in model's scores. It records every call; `fail(...)` queues faults for the next
 * calls (an Error carrying Workers AI's internal code, e.g. `3040: Capacity temporarily exceeded`,
 * or "hang" to never answer); `order(fn)` lists the entries in another order and `tamper(fn)`
 * rewrites the whole output (both until reset). Another model is refused as Workers AI refuses it
 * (`5007: No such model … or task`), and input the schema refuses throws in the schema's words.
 */
export class FakeRerankAiBinding implements AiBinding {
  readonly calls: { model: string; input: Record<string, unknown> }[] = [];
  private faults: (Error | "hang")[] = [];
  private ordering: ((entries: WorkersAiRank[]) => WorkersAiRank[]) | null = null;
  private tampering: ((output: { response: WorkersAiRank[] }) => unknown) | null = null;

  /** The contexts' texts of every call so far. */
  get sent(): string[][] {
    return this.calls.map((c) => ((c.input.contexts ?? []) as { text: string }[]).map((x) => x.text));
  }

  fail(...faults: (Error | "hang")[]): void {
    this.faults.push(...faults);
  }

  order(fn: (entries: WorkersAiRank[]) => WorkersAiRank[]): void {
    this.ordering = fn;
  }

  tamper(fn: (output: { response: WorkersAiRank[] }) => unknown): void {
    this.tampering = fn;
  }

  reset(): void {
    this.calls.length = 0;
    this.faults = [];
    this.ordering = null;
    this.tampering = null;
  }

  async run(model: string, input: unknown): Promise<unknown> {
    this.calls.push({ model, input: input as Record<string, unknown> });
    const fault = this.faults.shift();
    if (fault === "hang") return new Promise(() => {});
    if (fault) throw fault;
    if (model !== WORKERS_AI_RERANK_MODEL) throw new Error(`5007: No such model ${model} or task`);
    const { query, contexts, top_k: topK } = (input ?? {}) as Record<string, unknown>;
    if (typeof query !== "string") throw new Error("Type mismatch of '/query', 'string' expected");
    if (query.length === 0) throw new Error("Length of '/query' must be >= 1");
    if (!Array.isArray(contexts)) throw new Error("Type mismatch of '/contexts', 'array' expected");
    const texts = contexts.map((c: unknown, i) => {
      const text = (c as { text?: unknown } | null)?.text;
      if (typeof text !== "string") throw new Error(`Type mismatch of '/contexts/${i}/text', 'string' expected`);
      if (text.length === 0) throw new Error(`Length of '/contexts/${i}/text' must be >= 1`);
      return text;
    });
    if (topK !== undefined && (!Number.isInteger(topK) || (topK as number) < 1))
      throw new Error("Value of '/top_k' must be an integer >= 1");
    const best = texts
      .map((text, id) => ({ id, score: fakeRerankScore(query, text) }))
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .slice(0, (topK as number | undefined) ?? texts.length);
    const output = { response: this.ordering ? this.ordering(best) : best };
    return this.tampering ? this.tampering(output) : output;
  }
}
