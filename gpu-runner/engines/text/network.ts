import type { GeneratedBy, MetadataDraft, SummaryDraft } from "../../../contracts/understanding";
import { StepFailure } from "../../../contracts/step-failure";
import type { Logger } from "../../log";
import type { ChatMessage, ChatOptions } from "../chat/interface";
import { EngineRequestError } from "../../../contracts/engine-http";
import { EngineHttpClient, type RetryPolicy } from "../http";
import {
  metadataJsonSchema,
  readMetadataAnswer,
  readSummaryAnswer,
  saidText,
  summaryJsonSchema,
  type ReadContext,
  type Reading,
} from "./answer";
import { loadIabIds, type IabIds } from "./iab-ids";
import type { MetadataRequest, SummaryRequest, TextEngine } from "./interface";
import { ANSWER_MAX_TOKENS, metadataMessages, retryMessages, shownMaterial, summaryMessages, type Shown } from "./prompt";

/**
 * The common shape of the hosted language models behind `TextEngine`: the prompt (prompt.ts) and
 * the reading of the answer (answer.ts) are shared; a backend only sends a conversation and returns
 * what the model said (its text, the object a JSON mode parsed, or an `UnreadableAnswer`).
 *
 * Retried once on invalid output: when the first answer does not make a valid draft, one more
 * request goes out with the first conversation, the model's answer and a user message listing the
 * problems. If that answer fails too, the task fails retryably (sampling again later, or another
 * runner's engine, may do better) naming engine, model and the first problem. Transport failures
 * are the HTTP client's (engines/http.ts) and are not counted here.
 */
export interface NetworkTextConfig {
  model: string;
  retry: RetryPolicy;
  /** The IAB taxonomy the answers' ids are checked against (default: iab-ids.ts's copy of the official file). */
  iab?: IabIds;
  /** Where retries and adjustments of answers are recorded (`text_answer_retried`, `text_draft_adjusted`). */
  log?: Logger;
}

/** What one backend call needs besides the conversation: always the answer's JSON Schema, for backends that constrain decoding with one. */
export interface CompletionOptions extends ChatOptions {
  jsonSchema: Record<string, unknown>;
}

interface Task<T> {
  what: "metadata" | "summary";
  messages: ChatMessage[];
  jsonSchema: Record<string, unknown>;
  read(said: unknown, final: boolean): Reading<T>;
}

export abstract class NetworkTextEngine<C extends NetworkTextConfig> implements TextEngine {
  abstract readonly name: string;

  constructor(protected readonly config: C) {}

  get model(): string {
    return this.config.model;
  }

  get generatedBy(): GeneratedBy {
    return { engine: this.name, model: this.model, kind: "language-model" };
  }

  /** The shared HTTP client (engines/http.ts), naming this engine and model in its errors. */
  protected httpClient(baseUrl: string, headers: Record<string, string> = {}): EngineHttpClient {
    return new EngineHttpClient({ engine: this.name, model: this.model, baseUrl, headers, policy: this.config.retry });
  }

  async metadata(req: MetadataRequest): Promise<MetadataDraft> {
    const shown = shownMaterial(req.doc);
    if (shown.segments.length === 0) throw this.nothingToRead(req.doc.textSourceId, "its transcript has no text");
    const iab = this.iab();
    return this.ask(
      {
        what: "metadata",
        messages: metadataMessages(req.doc, shown, iab.tier1),
        jsonSchema: metadataJsonSchema(),
        read: (said, final) => readMetadataAnswer(said, this.readContext(shown, iab, final)),
      },
      req.signal,
    );
  }

  async summarize(req: SummaryRequest): Promise<SummaryDraft> {
    const shown = shownMaterial(req.doc, req.visualChunks);
    if (shown.segments.length === 0 && shown.chunks.length === 0)
      throw this.nothingToRead(req.doc.textSourceId, "its transcript has no text and no described scenes");
    const iab = this.iab();
    return this.ask(
      {
        what: "summary",
        messages: summaryMessages(req.doc, shown, iab.tier1),
        jsonSchema: summaryJsonSchema(),
        read: (said, final) => readSummaryAnswer(said, this.readContext(shown, iab, final)),
      },
      req.signal,
    );
  }

  /** Sends the conversation; resolves with what the model said (text, a parsed object, or an UnreadableAnswer). */
  protected abstract complete(messages: readonly ChatMessage[], opts: CompletionOptions): Promise<unknown>;

  private async ask<T>(task: Task<T>, signal: AbortSignal): Promise<T> {
    const opts = { jsonSchema: task.jsonSchema, maxTokens: ANSWER_MAX_TOKENS, signal };
    const first = await this.complete(task.messages, opts);
    const firstReading = task.read(first, false);
    if (firstReading.ok) return this.accept(task, firstReading);
    this.log("text_answer_retried", { task: task.what, issues: firstReading.issues });
    const second = await this.complete(retryMessages(task.messages, saidText(first), firstReading.issues), opts);
    const secondReading = task.read(second, true);
    if (secondReading.ok) return this.accept(task, secondReading);
    throw new EngineRequestError(
      `${this.name} (${this.model}): answered no valid ${task.what} draft in 2 requests: ${secondReading.issues[0]}`,
      true,
      undefined,
    );
  }

  private accept<T>(task: Task<T>, reading: { draft: T; notes: string[] }): T {
    if (reading.notes.length > 0) this.log("text_draft_adjusted", { task: task.what, notes: reading.notes });
    return reading.draft;
  }

  private iab(): IabIds {
    return this.config.iab ?? loadIabIds();
  }

  private readContext(shown: Shown, iab: IabIds, final: boolean): ReadContext {
    return { shown, iab: iab.category, final };
  }

  private nothingToRead(textSourceId: string, why: string): StepFailure {
    // The same transcript will never have more to read: retrying cannot help.
    return new StepFailure("processing_failed", `${this.name} (${this.model}): nothing to write about in ${textSourceId}: ${why}`, false);
  }

  private log(event: string, fields: Record<string, unknown>): void {
    this.config.log?.("info", event, { engine: this.name, model: this.model, ...fields });
  }
}
