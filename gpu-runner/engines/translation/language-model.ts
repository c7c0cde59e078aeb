import { z } from "zod";
import { languageKey } from "../../../contracts/translation-languages";
import type { Logger } from "../../log";
import { type ChatMessage, type ChatOptions } from "../chat/interface";
import { UnreadableAnswer } from "../chat/unreadable-answer";
import { EngineRequestError } from "../../../contracts/engine-http";
import { EngineHttpClient, type RetryPolicy } from "../http";
import { answerExcerpt, isJsonObject, jsonObjectIn } from "../json-answer";
import { retryMessages } from "../text/prompt";
import { flatText } from "./apertium-batch";
import { glossaryIssues, instructionLines, protect, restore, type ProtectedTexts } from "./glossary";
import type { GlossaryDrop, GlossaryEntry, TranslationEngine, TranslationRequest } from "./interface";
import { pairOrFail } from "./pairs";

/**
 * The common shape of the language models behind `TranslationEngine` (replicate.ts,
 * openai-compatible.ts): texts go in chunks (at most CHUNK_TEXTS texts and CHUNK_CHARS characters),
 * each asked as one conversation for a JSON object `{ "translations": [...] }` with exactly one
 * string per text, in order. The answer is read with zod; when it does not validate (not JSON, a
 * wrong count, an empty translation of a non-empty text, a glossary term missing) the model is
 * asked once more with its answer and the problems (text/prompt.ts `retryMessages`, as the text
 * engines do). A second invalid answer fails the task retryably, naming engine, model and the
 * first problem, except for glossary terms: a term still missing after the retry is reported
 * (`onGlossaryDropped`) and the translation kept.
 *
 * Glossary: `instruction` style (glossary.ts): the texts go as they are, the system message lists
 * the terms found in the chunk with their required spelling, and the preferred spelling is written
 * over the term afterwards. Empty texts are not sent and stay empty.
 */
export interface LanguageModelTranslationConfig {
  model: string;
  retry: RetryPolicy;
  /** The operator's languages (`policy.translation.languages`); empty: any pair. */
  languages?: readonly string[];
  log?: Logger;
}

export const CHUNK_TEXTS = 40;
export const CHUNK_CHARS = 3_000;
/** Room for a chunk's translations (3,000 characters is ~1,000 tokens; other scripts and JSON quoting take more). */
export const ANSWER_MAX_TOKENS = 2_048;

const AnswerSchema = z.object({ translations: z.array(z.string()) });

interface Reading {
  translations?: string[];
  issues: string[];
  drops: GlossaryDrop[];
}

export abstract class LanguageModelTranslationEngine<C extends LanguageModelTranslationConfig> implements TranslationEngine {
  abstract readonly engine: "replicate" | "openai-compatible";

  constructor(protected readonly config: C) {}

  get model(): string {
    return this.config.model;
  }

  modelFor(source: string, target: string): string {
    this.pair(source, target);
    return this.config.model;
  }

  protected httpClient(baseUrl: string, headers: Record<string, string> = {}): EngineHttpClient {
    return new EngineHttpClient({ engine: this.engine, model: this.model, baseUrl, headers, policy: this.config.retry });
  }

  /** Sends the conversation; resolves with what the model said (its text, a parsed object, or an UnreadableAnswer). */
  protected abstract complete(messages: readonly ChatMessage[], opts: ChatOptions): Promise<unknown>;

  async translate(req: TranslationRequest): Promise<string[]> {
    this.pair(req.source, req.target);
    req.signal.throwIfAborted();
    const out = req.texts.map(() => "");
    const todo = req.texts.flatMap((t, i) => (flatText(t) === "" ? [] : [i]));
    let done = req.texts.length - todo.length;
    for (const chunk of chunks(todo, (i) => flatText(req.texts[i]!).length)) {
      const texts = chunk.map((i) => flatText(req.texts[i]!));
      const translated = await this.chunk(req, texts, chunk);
      chunk.forEach((i, k) => (out[i] = translated[k]!));
      done += chunk.length;
      req.onProgress?.(done);
    }
    return out;
  }

  private pair(source: string, target: string): void {
    // With no operator list, any pair: the model decides what it can do.
    const languages = this.config.languages?.length ? this.config.languages : [source, target];
    pairOrFail(this.engine, this.engine, this.model, source, target, languages);
  }

  private async chunk(req: TranslationRequest, texts: string[], indexes: number[]): Promise<string[]> {
    const prot = protect(texts, req.glossary, "instruction");
    const messages = translationMessages(req.source, req.target, texts, prot.used);
    const opts: ChatOptions = { maxTokens: ANSWER_MAX_TOKENS, signal: req.signal };
    const first = await this.complete(messages, opts);
    const firstReading = this.read(first, texts, prot, req.glossary);
    let reading = firstReading;
    if (reading.issues.length > 0 || reading.drops.length > 0) {
      const issues = [...reading.issues, ...glossaryIssues(reading.drops)];
      this.config.log?.("info", "translation_answer_retried", { engine: this.engine, model: this.model, issues });
      const second = await this.complete(retryMessages(messages, saidText(first), issues), opts);
      reading = this.read(second, texts, prot, req.glossary);
      // A first answer that only lost glossary terms is still better than a second one that is no answer.
      if (!reading.translations && firstReading.translations) reading = firstReading;
      if (!reading.translations)
        throw new EngineRequestError(
          `${this.engine} (${this.model}): answered no valid translations in 2 requests: ${reading.issues[0]}`,
          true,
          undefined,
        );
    }
    for (const d of reading.drops) req.onGlossaryDropped?.({ ...d, index: indexes[d.index]! });
    return reading.translations!;
  }

  private read(said: unknown, texts: readonly string[], prot: ProtectedTexts, glossary: readonly GlossaryEntry[] = []): Reading {
    const fail = (issue: string): Reading => ({ issues: [issue], drops: [] });
    if (said instanceof UnreadableAnswer) return fail(`the answer is unreadable: ${said.reason}`);
    const obj = typeof said === "string" ? jsonObjectIn(said) : isJsonObject(said) ? said : undefined;
    if (!obj) return fail(`the answer is not a JSON object: ${answerExcerpt(typeof said === "string" ? said : JSON.stringify(said))}`);
    const parsed = AnswerSchema.safeParse(obj);
    if (!parsed.success) return fail(`the answer is not {"translations": [<string>, ...]}: ${parsed.error.issues[0]?.message ?? ""}`);
    const got = parsed.data.translations;
    if (got.length !== texts.length)
      return fail(`translations: ${got.length} strings for ${texts.length} texts; exactly one per text is required`);
    const empty = got.flatMap((t, i) => (flatText(t) === "" ? [`translations[${i}]: empty, for a text that is not`] : []));
    if (empty.length > 0) return { issues: empty, drops: [] };
    const restored = restore(got.map(flatText), prot, glossary, "instruction");
    return { translations: restored.texts, issues: [], drops: restored.dropped };
  }
}

/** Indexes in runs of at most CHUNK_TEXTS and CHUNK_CHARS (a longer text goes alone). */
function chunks(indexes: readonly number[], size: (i: number) => number): number[][] {
  const out: number[][] = [];
  let current: number[] = [];
  let chars = 0;
  for (const i of indexes) {
    if (current.length > 0 && (current.length >= CHUNK_TEXTS || chars + size(i) > CHUNK_CHARS)) {
      out.push(current);
      current = [];
      chars = 0;
    }
    current.push(i);
    chars += size(i);
  }
  if (current.length > 0) out.push(current);
  return out;
}

const LANGUAGE_NAMES = new Intl.DisplayNames(["en"], { type: "language" });

/** `Spanish (es)`, `Portuguese (Brazil) (pt-BR)`. */
export function languageName(code: string): string {
  const key = languageKey(code);
  let name: string | undefined;
  try {
    name = LANGUAGE_NAMES.of(key);
  } catch {
    name = undefined;
  }
  return name && name !== key ? `${name} (${key})` : key;
}

/**
 * The conversation for one chunk: the task, the exact JSON shape, the rules (one per text, in
 * order, nothing merged or split, the glossary), and the texts as a JSON object on a line of its
 * own (`{"texts": [...]}`), so quotes and newlines inside a text can never be mistaken for a
 * boundary.
 */
export function translationMessages(
  source: string,
  target: string,
  texts: readonly string[],
  glossary: readonly GlossaryEntry[],
): ChatMessage[] {
  const system = [
    `You translate subtitles of a video from ${languageName(source)} into ${languageName(target)}.`,
    `Answer with a JSON object only, no other text, of exactly this shape: {"translations": [<string>, ...]} with exactly ${texts.length} strings.`,
    "Rules:",
    "- translations[i] is the translation of texts[i], in the same order: never merge, split, reorder or skip texts, even when a sentence runs on from one text into the next.",
    "- Translate the meaning naturally; keep numbers, names and punctuation; add no notes or explanations.",
    ...(glossary.length > 0
      ? ["- Glossary: these terms are never translated; write each exactly as given:", ...instructionLines(glossary)]
      : []),
  ].join("\n");
  const user = `Texts (${texts.length}):\n${JSON.stringify({ texts })}`;
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}

function saidText(said: unknown): string | undefined {
  if (typeof said === "string") return said;
  if (isJsonObject(said)) return JSON.stringify(said);
  return undefined;
}
