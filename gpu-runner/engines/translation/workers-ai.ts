import { z } from "zod";
import { baseLanguage } from "../../../contracts/translation-languages";
import { EngineHttpClient, type RetryPolicy } from "../http";
import { protect, restore } from "./glossary";
import type { TranslationEngine, TranslationRequest } from "./interface";
import { pairOrFail } from "./pairs";
import { workersAiRunPath } from "../../../contracts/model-refs";

/**
 * `@cf/meta/m2m100-1.2b` over the Workers AI REST API: `POST {baseUrl}/accounts/{account}/ai/run/
 * @cf/meta/m2m100-1.2b` with `{ text, source_lang, target_lang }` (ISO 639-1 codes, the region
 * dropped: the model has one Portuguese), answered `{ result: { translated_text }, success, … }`.
 *
 * One text per request, TRANSLATION_CONCURRENCY requests at a time. The model's other input form,
 * `{ requests: [...] }`, belongs to Workers AI's asynchronous Batch API (`?queueRequest=true`: the
 * answer is a `request_id` to poll, fulfilled "eventually"), made for workloads nobody waits on;
 * and a neural model given many segments in one text is free to merge or reorder them. Glossary
 * terms go through as placeholders (glossary.ts), which the model copies as unknown tokens.
 */
export interface WorkersAITranslationConfig {
  baseUrl: string;
  accountId: string;
  apiToken: string;
  model: string;
  retry: RetryPolicy;
  /** Requests in flight at once (default TRANSLATION_CONCURRENCY). */
  concurrency?: number;
}

export const WORKERS_AI_TRANSLATION_DEFAULT_MODEL = "@cf/meta/m2m100-1.2b";
export const TRANSLATION_CONCURRENCY = 4;

const ResponseSchema = z.object({ result: z.object({ translated_text: z.string() }).loose() });

export class WorkersAITranslationEngine implements TranslationEngine {
  readonly engine = "workers-ai" as const;
  private readonly http: EngineHttpClient;

  constructor(private readonly config: WorkersAITranslationConfig) {
    this.http = new EngineHttpClient({
      engine: "workers-ai",
      model: config.model,
      baseUrl: config.baseUrl,
      headers: { authorization: `Bearer ${config.apiToken}` },
      policy: config.retry,
    });
  }

  modelFor(source: string, target: string): string {
    pairOrFail("workers-ai", "workers-ai", this.config.model, source, target);
    return this.config.model;
  }

  async translate(req: TranslationRequest): Promise<string[]> {
    const pair = pairOrFail("workers-ai", "workers-ai", this.config.model, req.source, req.target);
    req.signal.throwIfAborted();
    const prot = protect(req.texts, req.glossary, "placeholder");
    const out = prot.texts.map(() => "");
    const todo = prot.texts.flatMap((t, i) => (t.trim() === "" ? [] : [i]));
    let done = req.texts.length - todo.length;
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (next < todo.length && !failed) {
        const i = todo[next++]!;
        try {
          out[i] = await this.one(prot.texts[i]!.trim(), baseLanguage(pair.source), baseLanguage(pair.target), req.signal);
        } catch (err) {
          // The others stop taking texts: the call has failed.
          failed = true;
          throw err;
        }
        req.onProgress?.(++done);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.config.concurrency ?? TRANSLATION_CONCURRENCY, todo.length) }, worker));
    const restored = restore(out, prot, req.glossary, "placeholder");
    for (const drop of restored.dropped) req.onGlossaryDropped?.(drop);
    return restored.texts;
  }

  private async one(text: string, source: string, target: string, signal: AbortSignal): Promise<string> {
    const body = await this.http.json(workersAiRunPath(this.config.accountId, this.config.model), {
      method: "POST",
      body: { text, source_lang: source, target_lang: target },
      signal,
    });
    const parsed = ResponseSchema.safeParse(body);
    if (!parsed.success) throw this.http.failure(`answered without a translated_text: ${parsed.error.issues[0]?.message ?? ""}`);
    return parsed.data.result.translated_text.trim();
  }
}
