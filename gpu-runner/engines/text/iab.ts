import { readFileSync } from "node:fs";
import { IAB_CATEGORIES_MAX, type IabCategory } from "../../../contracts/understanding";
import { analyse, englishNlp, stemIts, winkTerm, WORD_TYPES, type Token } from "./analysis";
import { IAB_KEYWORDS } from "./iab/keywords";

/**
 * The IAB Tech Lab Content Taxonomy 3.1 (iab/content-taxonomy-3.1.tsv, CC BY 3.0, see
 * iab/README.md) and a local, English-only classifier over it.
 *
 * Evidence for a category is
 * - the words of its name: the name split at "&", "and", "/", "," into parts ("Barbecues and
 *   Grilling" → "barbecues", "grilling"; "Auto Body Styles" stays one phrase), text in parentheses
 *   dropped ("Comedy (Music and Audio)" → "comedy"), and single generic parts ("Style", "Events",
 *   "Interests" …: `GENERIC_NAME_PARTS`) and one-letter parts left out; the "Genres" subtree is not
 *   classified (see `EXCLUDED_TIER1`);
 * - its hand-written keyword list (iab/keywords.ts);
 * - everything matched for its descendants (a "Soccer" word is evidence for "Sports").
 * Terms are matched on wink-nlp stems; a term of several words matches in sequence and weighs 2, a
 * single word 1; each word of the text counts once per category (its longest match: "game" inside
 * "video game" is not a second term).
 *
 * Confidence, for a category with matched weight `hits` from `distinct` different terms, in a text
 * of `content` content words (analysis.ts):
 *     (1 − e^(−density / 0.04)) × (1 − e^(−distinct / 3)),   density = hits / content
 * The first factor is how much of the talk is about the topic (4 % of the content words gives
 * 0.63, 12 % gives 0.95); the second how varied the evidence is (one term 0.28, two 0.49, five
 * 0.81). Both must be high: a talk that says "walking" forty times scores under 0.3, as does a long
 * talk on something else that mentions a topic's words in passing. Categories under `minConfidence`
 * (0.3: more than one distinct term is always needed) are not returned; nothing is better than a
 * guess. At most 5, by confidence, then by matched weight.
 */

export interface IabTaxonomyEntry {
  id: string;
  /** The parent's id; null for a tier-1 category. */
  parent: string | null;
  name: string;
  /** Tier 1 first, down to the category's own name. */
  tierPath: string[];
  /** The TSV's Extension column (e.g. "SCD"), null when empty. */
  extension: string | null;
}

export interface IabTaxonomy {
  version: "3.1";
  entries: readonly IabTaxonomyEntry[];
  byId: ReadonlyMap<string, IabTaxonomyEntry>;
}

export const IAB_TAXONOMY_FILE = new URL("./iab/content-taxonomy-3.1.tsv", import.meta.url);
export const DEFAULT_MIN_CONFIDENCE = 0.3;
const DENSITY_SCALE = 0.04;
const DISTINCT_SCALE = 3;

let taxonomy: IabTaxonomy | undefined;

/** The taxonomy, parsed once per process. */
export function loadIabTaxonomy(): IabTaxonomy {
  taxonomy ??= parseTaxonomy(readFileSync(IAB_TAXONOMY_FILE, "utf8"));
  return taxonomy;
}

/** Parses the official TSV: two header lines, then Unique ID, Parent, Name, Tier 1–4, Extension. */
export function parseTaxonomy(tsv: string): IabTaxonomy {
  const entries: IabTaxonomyEntry[] = [];
  for (const line of tsv.split(/\r?\n/).slice(2)) {
    if (line.trim() === "") continue;
    const [id = "", parent = "", name = "", t1 = "", t2 = "", t3 = "", t4 = "", extension = ""] = line.split("\t").map((c) => c.trim());
    if (id === "" || name === "") continue;
    const tierPath = [t1, t2, t3, t4].filter((t) => t !== "");
    entries.push({
      id,
      parent: parent === "" ? null : parent,
      name,
      tierPath: tierPath.length > 0 ? tierPath : [name],
      extension: extension || null,
    });
  }
  return { version: "3.1", entries, byId: new Map(entries.map((e) => [e.id, e])) };
}

export function iabCategory(id: string): IabTaxonomyEntry | undefined {
  return loadIabTaxonomy().byId.get(id.trim());
}

/**
 * The entries for the ids that exist in the taxonomy, in the order given, each once; unknown ids
 * are dropped. For hosted language models' answers: numbers are accepted as ids ("216" or 216).
 */
export function validateIabIds(ids: readonly unknown[]): IabTaxonomyEntry[] {
  const out: IabTaxonomyEntry[] = [];
  const seen = new Set<string>();
  for (const raw of ids) {
    if (typeof raw !== "string" && typeof raw !== "number") continue;
    const entry = iabCategory(String(raw));
    if (entry && !seen.has(entry.id)) {
      seen.add(entry.id);
      out.push(entry);
    }
  }
  return out;
}

/** A taxonomy entry as the contracts' category, with a confidence clamped to 0..1. */
export function toIabCategory(entry: IabTaxonomyEntry, confidence: number): IabCategory {
  const c = Number.isFinite(confidence) ? Math.min(1, Math.max(0, confidence)) : 0;
  return { id: entry.id, name: entry.name, tierPath: [...entry.tierPath], confidence: c };
}

export interface ClassifyIabOptions {
  /** At most this many (and never more than 5). */
  max?: number;
  minConfidence?: number;
}

/** Categories for English text (see the module's documentation). */
export function classifyIab(text: string, opts: ClassifyIabOptions = {}): IabCategory[] {
  const a = analyse([{ id: 0, start: 0, end: 0, text }], "en");
  return classifyIabTokens(a.tokens, opts);
}

/** The same over tokens the text engine's analysis already made (English, wink stems). */
export function classifyIabTokens(tokens: readonly Pick<Token, "term" | "content">[], opts: ClassifyIabOptions = {}): IabCategory[] {
  const max = Math.min(IAB_CATEGORIES_MAX, opts.max ?? IAB_CATEGORIES_MAX);
  const minConfidence = opts.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
  const content = Math.max(1, tokens.filter((t) => t.content).length);
  const { byFirst, ancestors } = lexicon();

  // Per category: the weight found at each position, the distinct terms, and the end of the last
  // match (a word inside a longer match, "game" in "video game", is not evidence a second time).
  const evidence = new Map<string, { weights: Map<number, number>; terms: Set<string>; coveredTo: number }>();
  for (let p = 0; p < tokens.length; p++) {
    const matching = (byFirst.get(tokens[p]?.term ?? "") ?? []).filter((term) => term.stems.every((s, k) => tokens[p + k]?.term === s));
    for (const term of matching.sort((x, y) => y.stems.length - x.stems.length))
      for (const id of ancestors.get(term.category) ?? []) {
        let e = evidence.get(id);
        if (!e) {
          e = { weights: new Map(), terms: new Set(), coveredTo: 0 };
          evidence.set(id, e);
        }
        if (p < e.coveredTo) continue;
        e.weights.set(p, term.weight);
        e.terms.add(term.key);
        e.coveredTo = Math.max(e.coveredTo, p + term.stems.length);
      }
  }

  const tax = loadIabTaxonomy();
  const scored: { entry: IabTaxonomyEntry; confidence: number; hits: number }[] = [];
  for (const [id, e] of evidence) {
    const entry = tax.byId.get(id);
    if (!entry) continue;
    let hits = 0;
    for (const w of e.weights.values()) hits += w;
    const confidence = (1 - Math.exp(-hits / content / DENSITY_SCALE)) * (1 - Math.exp(-e.terms.size / DISTINCT_SCALE));
    if (confidence >= minConfidence) scored.push({ entry, confidence, hits });
  }
  return scored
    .sort((x, y) => y.confidence - x.confidence || y.hits - x.hits || x.entry.tierPath.length - y.entry.tierPath.length)
    .slice(0, max)
    .map((s) => toIabCategory(s.entry, Math.round(s.confidence * 1000) / 1000));
}

/** Single name parts too general to be evidence on their own. */
const GENERIC_NAME_PARTS = new Set(
  "general other others interests topics genres type types style industries industry culture life living care services personal issues content special events interest".split(
    " ",
  ),
);

/**
 * "Genres" classifies the form of a film or programme (comedy, documentary, family), not its topic;
 * words cannot tell it ("family" is a topic far more often than a genre), so it is left to the
 * hosted models.
 */
const EXCLUDED_TIER1 = new Set(["Genres"]);

interface Term {
  category: string;
  /** Stems in order. */
  stems: string[];
  key: string;
  weight: number;
}

interface Lexicon {
  /** Terms by their first stem. */
  byFirst: Map<string, Term[]>;
  /** A category and its ancestors, for every category. */
  ancestors: Map<string, string[]>;
}

let built: Lexicon | undefined;

function lexicon(): Lexicon {
  if (built) return built;
  const tax = loadIabTaxonomy();
  const byFirst = new Map<string, Term[]>();
  const stemCache = new Map<string, string[]>();
  const add = (category: string, phrase: string) => {
    const lower = phrase.toLowerCase().trim();
    if (lower === "") return;
    let stems = stemCache.get(lower);
    if (!stems) {
      stems = stemsOf(lower);
      stemCache.set(lower, stems);
    }
    const first = stems[0];
    if (first === undefined) return;
    const term: Term = { category, stems, key: stems.join(" "), weight: stems.length > 1 ? 2 : 1 };
    const list = byFirst.get(first) ?? [];
    if (!list.some((t) => t.category === category && t.key === term.key)) list.push(term);
    byFirst.set(first, list);
  };
  const ancestors = new Map<string, string[]>();
  for (const e of tax.entries) {
    if (EXCLUDED_TIER1.has(e.tierPath[0] ?? "")) continue;
    for (const part of nameParts(e.name)) add(e.id, part);
    for (const kw of IAB_KEYWORDS[e.id]?.terms ?? []) add(e.id, kw);
    const chain: string[] = [];
    for (let cur: IabTaxonomyEntry | undefined = e; cur && !chain.includes(cur.id); cur = cur.parent ? tax.byId.get(cur.parent) : undefined)
      chain.push(cur.id);
    ancestors.set(e.id, chain);
  }
  built = { byFirst, ancestors };
  return built;
}

export function nameParts(name: string): string[] {
  return name
    .replace(/\([^)]*\)/g, " ")
    .split(/\s*(?:&|\/|,|\band\b|\bor\b)\s*/i)
    .map((p) => p.trim())
    .filter((p) => p.length > 1 && !(!/\s/.test(p) && GENERIC_NAME_PARTS.has(p.toLowerCase())));
}

/** A phrase's word terms, by the same wink pipeline and rule the text goes through. */
function stemsOf(phrase: string): string[] {
  const nlp = englishNlp();
  const tokens = nlp.readDoc(phrase).tokens();
  const types = tokens.out(nlp.its.type) as string[];
  const stems = tokens.out(stemIts(nlp)) as string[];
  const values = tokens.out(nlp.its.value) as string[];
  const out: string[] = [];
  types.forEach((type, i) => {
    if (WORD_TYPES.has(type)) out.push(winkTerm(values[i] ?? "", type, stems[i]));
  });
  return out;
}
