import { z } from "zod";
import {
  DESCRIPTION_MAX,
  IAB_CATEGORIES_MAX,
  LONG_SYNOPSIS_MAX,
  METADATA_KEYWORDS_MAX,
  MetadataDraftSchema,
  SEO_DESCRIPTION_MAX,
  SHORT_SYNOPSIS_MAX,
  SOCIAL_HOOK_MAX,
  SUMMARY_KEYWORD_COUNT,
  SummaryDraftSchema,
  TITLE_MAX,
  type Chapter,
  type IabCategory,
  type MetadataDraft,
  type SummaryDraft,
} from "../../../contracts/understanding";
import { UnreadableAnswer } from "../chat/unreadable-answer";
import { answerExcerpt, isJsonObject, jsonObjectIn } from "../json-answer";
import type { IabLookup } from "./iab-ids";
import { cutAtWord, type Shown } from "./prompt";

/**
 * How a hosted language model's answer becomes a draft, or the list of what is wrong with it.
 *
 * The answer is read with tolerance for a markdown fence or a sentence around the JSON (or taken as
 * is when a JSON mode already parsed it), checked for shape (zod: types, non-empty strings,
 * counts, confidences in 0..1), then against the document:
 *
 * - Chapters name the segment they open with (`segmentId`), which must be a segment the prompt
 *   showed; `start` is that segment's start, never the model's. Chapters are ordered by start and
 *   deduplicated (one per segment, one per start), and the first is the document's opening: it is
 *   moved to the first shown segment if the model opened it later, and starts at 0 (the contract's
 *   rule). These are fixed without asking again, and noted.
 * - Categories are IAB Content Taxonomy 3.1 ids with a confidence; names and tier paths come from
 *   the taxonomy. Ids the taxonomy does not have are dropped (a small model misremembers ids; a
 *   draft may have no category), noted; a repeated id keeps its highest confidence; the list is
 *   ordered by confidence.
 * - `visualChunksUsed` must name scenes the prompt showed; repeats are dropped, the list is sorted.
 * - Keywords are trimmed and deduplicated ignoring case; a summary needs 5 distinct ones.
 *
 * Strings over their limit are a problem to ask the model about (`final: false`): a model can
 * rewrite a title shorter, a cut cannot. On the answer to the retry (`final: true`) they are cut
 * at a word boundary and marked with "…" instead, and each cut is noted (the engine logs notes):
 * the model has been told, and a slightly cut SEO description is more use than a failed job.
 * Every other problem fails the answer whichever round it is.
 */

export type Reading<T> = { ok: true; draft: T; notes: string[] } | { ok: false; issues: string[] };

export interface ReadContext {
  shown: Shown;
  iab: IabLookup;
  /** The answer to the retry: over-long strings are cut rather than refused. */
  final: boolean;
}

/** The text of what the model said, for the retry's assistant turn (undefined when it said nothing readable). */
export function saidText(said: unknown): string | undefined {
  if (said instanceof UnreadableAnswer) return undefined;
  return typeof said === "string" ? said : JSON.stringify(said);
}

const Text = z.string().trim().min(1, "must not be empty");
const SegmentId = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .regex(/^\s*\d+\s*$/, "must be a segment id")
    .transform(Number),
]);
const IabAnswer = z
  .object({
    id: z.union([z.string(), z.number()]).transform((id) => String(id).trim()),
    confidence: z.number().min(0).max(1),
  })
  .loose();

const MetadataAnswer = z
  .object({
    title: Text,
    description: Text,
    keywords: z.array(Text),
    categories: z.array(IabAnswer).max(IAB_CATEGORIES_MAX),
    chapters: z.array(z.object({ segmentId: SegmentId, title: Text }).loose()).min(1),
  })
  .loose();

const SummaryAnswer = z
  .object({
    shortSynopsis: Text,
    longSynopsis: Text,
    seoDescriptions: z.array(Text).length(3),
    socialHooks: z.array(Text).length(3),
    keywords: z.array(Text),
    classification: z.array(IabAnswer).max(IAB_CATEGORIES_MAX),
    visualChunksUsed: z.array(z.number().int().nonnegative()),
  })
  .loose();

export function readMetadataAnswer(said: unknown, ctx: ReadContext): Reading<MetadataDraft> {
  const answer = parse(said, MetadataAnswer);
  if (!answer.ok) return answer;
  const a = answer.value;
  const check = new Checker(ctx.final);
  const title = check.limit("title", a.title, TITLE_MAX);
  const description = check.limit("description", a.description, DESCRIPTION_MAX);
  const keywords = distinct(a.keywords);
  if (keywords.length > METADATA_KEYWORDS_MAX)
    check.problem(`keywords: ${keywords.length} distinct keywords, at most ${METADATA_KEYWORDS_MAX} allowed`);
  const chapters = readChapters(a.chapters, ctx.shown, check);
  const categories = readCategories(a.categories, ctx.iab, "categories", check);
  return check.done(MetadataDraftSchema, { title, description, keywords, categories, chapters });
}

export function readSummaryAnswer(said: unknown, ctx: ReadContext): Reading<SummaryDraft> {
  const answer = parse(said, SummaryAnswer);
  if (!answer.ok) return answer;
  const a = answer.value;
  const check = new Checker(ctx.final);
  const shortSynopsis = check.limit("shortSynopsis", a.shortSynopsis, SHORT_SYNOPSIS_MAX);
  const longSynopsis = check.limit("longSynopsis", a.longSynopsis, LONG_SYNOPSIS_MAX);
  const seoDescriptions = a.seoDescriptions.map((d, i) => check.limit(`seoDescriptions[${i}]`, d, SEO_DESCRIPTION_MAX));
  const socialHooks = a.socialHooks.map((h, i) => check.limit(`socialHooks[${i}]`, h, SOCIAL_HOOK_MAX));
  const keywords = distinct(a.keywords);
  if (keywords.length !== SUMMARY_KEYWORD_COUNT)
    check.problem(`keywords: ${keywords.length} distinct keywords, exactly ${SUMMARY_KEYWORD_COUNT} wanted`);
  const classification = readCategories(a.classification, ctx.iab, "classification", check);
  const shownChunks = new Set(ctx.shown.chunks.map((c) => c.index));
  a.visualChunksUsed.forEach((index, i) => {
    if (!shownChunks.has(index))
      check.problem(
        `visualChunksUsed[${i}]: ${index} is not the index of a scene shown (${shownChunks.size > 0 ? `shown: ${[...shownChunks].join(", ")}` : "none was shown"})`,
      );
  });
  const visualChunksUsed = [...new Set(a.visualChunksUsed)].sort((x, y) => x - y);
  return check.done(SummaryDraftSchema, {
    shortSynopsis,
    longSynopsis,
    seoDescriptions,
    socialHooks,
    keywords,
    classification,
    visualChunksUsed,
  });
}

function readChapters(answered: readonly { segmentId: number; title: string }[], shown: Shown, check: Checker): Chapter[] {
  const segments = new Map(shown.segments.map((s) => [s.id, s]));
  const chapters: Chapter[] = [];
  answered.forEach((c, i) => {
    const title = check.limit(`chapters[${i}].title`, c.title, TITLE_MAX);
    const segment = segments.get(c.segmentId);
    if (!segment) {
      check.problem(`chapters[${i}].segmentId: ${c.segmentId} is not the id of a transcript segment shown`);
      return;
    }
    chapters.push({ segmentId: segment.id, start: segment.start, title });
  });
  chapters.sort((x, y) => x.start - y.start || x.segmentId - y.segmentId);
  const kept = chapters.filter((c, i) => i === 0 || (c.segmentId !== chapters[i - 1]!.segmentId && c.start !== chapters[i - 1]!.start));
  if (kept.length < chapters.length) check.note(`${chapters.length - kept.length} chapter(s) repeating a segment or start dropped`);
  const opening = shown.segments[0];
  const first = kept[0];
  if (first && opening) {
    if (first.segmentId !== opening.id) {
      check.note(`the first chapter opened with segment ${first.segmentId}; moved to the opening segment ${opening.id}`);
      first.segmentId = opening.id;
    }
    first.start = 0;
  }
  return kept;
}

function readCategories(
  answered: readonly { id: string; confidence: number }[],
  lookup: IabLookup,
  field: string,
  check: Checker,
): IabCategory[] {
  const byId = new Map<string, IabCategory>();
  const unknown: string[] = [];
  for (const { id, confidence } of answered) {
    const entry = lookup(id);
    if (!entry) {
      unknown.push(id);
      continue;
    }
    const seen = byId.get(entry.id);
    if (!seen || seen.confidence < confidence)
      byId.set(entry.id, { id: entry.id, name: entry.name, tierPath: [...entry.tierPath], confidence });
  }
  if (unknown.length > 0)
    check.note(`${field}: ids not in the IAB taxonomy dropped: ${unknown.map((id) => JSON.stringify(id)).join(", ")}`);
  return [...byId.values()].sort((x, y) => y.confidence - x.confidence);
}

function distinct(words: readonly string[]): string[] {
  const seen = new Set<string>();
  return words.filter((w) => {
    const key = w.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Problems (the answer fails), notes (what was fixed), and the limit rule of the round. */
class Checker {
  private readonly problems: string[] = [];
  private readonly notes: string[] = [];
  constructor(private readonly final: boolean) {}

  problem(issue: string): void {
    this.problems.push(issue);
  }

  note(what: string): void {
    this.notes.push(what);
  }

  /** `text` within `max` characters: over it, a problem before the retry, a cut (noted) after it. */
  limit(path: string, text: string, max: number): string {
    if (text.length <= max) return text;
    if (!this.final) {
      this.problem(`${path}: ${text.length} characters, at most ${max} allowed`);
      return text;
    }
    this.note(`${path}: cut from ${text.length} to ${max} characters`);
    return cutAtWord(text, max);
  }

  /** The draft, checked by the contract's own schema too (a last guard: every rule above should already hold). */
  done<T>(schema: z.ZodType<T>, draft: T): Reading<T> {
    if (this.problems.length > 0) return { ok: false, issues: this.problems };
    const parsed = schema.safeParse(draft);
    if (!parsed.success) return { ok: false, issues: parsed.error.issues.map(describeIssue) };
    return { ok: true, draft: parsed.data, notes: this.notes };
  }
}

function parse<T>(said: unknown, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; issues: string[] } {
  if (said instanceof UnreadableAnswer) {
    const why = said.finishReason ? `${said.reason}, finish_reason ${said.finishReason}` : said.reason;
    return { ok: false, issues: [`the answer is not a JSON object (${why})`] };
  }
  const json = typeof said === "string" ? jsonObjectIn(said) : isJsonObject(said) ? said : undefined;
  if (json === undefined)
    return {
      ok: false,
      issues: [`the answer is not a JSON object: ${answerExcerpt(typeof said === "string" ? said : JSON.stringify(said))}`],
    };
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, issues: parsed.error.issues.map(describeIssue) };
  return { ok: true, value: parsed.data };
}

/** `chapters[2].title: must not be empty` — the path as a reader of the JSON writes it. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`)).join("");
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * The answer's JSON Schema, for backends that constrain decoding with one (Workers AI's
 * `response_format: { type: "json_schema" }`). Lengths are stated too; the zod checks above stay
 * the judge, since a backend may ignore what it cannot enforce.
 */
export function metadataJsonSchema(): Record<string, unknown> {
  return objectSchema({
    title: text(TITLE_MAX),
    description: text(DESCRIPTION_MAX),
    keywords: { type: "array", items: { type: "string", minLength: 1 }, maxItems: METADATA_KEYWORDS_MAX },
    categories: iabList(),
    chapters: {
      type: "array",
      minItems: 1,
      items: objectSchema({ segmentId: { type: "integer", minimum: 0 }, title: text(TITLE_MAX) }),
    },
  });
}

export function summaryJsonSchema(): Record<string, unknown> {
  return objectSchema({
    shortSynopsis: text(SHORT_SYNOPSIS_MAX),
    longSynopsis: text(LONG_SYNOPSIS_MAX),
    seoDescriptions: { type: "array", items: text(SEO_DESCRIPTION_MAX), minItems: 3, maxItems: 3 },
    socialHooks: { type: "array", items: text(SOCIAL_HOOK_MAX), minItems: 3, maxItems: 3 },
    keywords: { type: "array", items: { type: "string", minLength: 1 }, minItems: SUMMARY_KEYWORD_COUNT, maxItems: SUMMARY_KEYWORD_COUNT },
    classification: iabList(),
    visualChunksUsed: { type: "array", items: { type: "integer", minimum: 0 } },
  });
}

function objectSchema(properties: Record<string, unknown>): Record<string, unknown> {
  return { type: "object", properties, required: Object.keys(properties) };
}

function text(max: number): Record<string, unknown> {
  return { type: "string", minLength: 1, maxLength: max };
}

function iabList(): Record<string, unknown> {
  return {
    type: "array",
    maxItems: IAB_CATEGORIES_MAX,
    items: objectSchema({ id: { type: "string" }, confidence: { type: "number", minimum: 0, maximum: 1 } }),
  };
}
