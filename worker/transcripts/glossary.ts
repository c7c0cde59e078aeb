import type { Segment } from "../../contracts/transcript";
import { sha256Hex } from "../platform/crypto";

export interface GlossaryTerm {
  term: string;
  preferred: string;
}

/**
 * Bounds of a project's glossary (docs/api.md "Glossary"): every term is one alternative of the
 * regular expression run over each transcript, so the count and length keep that expression, and a
 * rebuild, small. Over either: 422.
 */
export const GLOSSARY_MAX_TERMS = 500;
export const GLOSSARY_TERM_MAX_CHARS = 200;
/**
 * Transcripts whose glossary layer a glossary change rebuilds in its own request (each is up to
 * 8 MiB of `raw` read, matched and written). The rest are rebuilt when next read: a layer is never
 * served from an older glossary (`glossaryStamp`).
 */
export const GLOSSARY_REBUILDS_PER_REQUEST = 5;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Builds the `glossary` layer: each term (matched case-insensitively on word boundaries) is
 * replaced by its preferred spelling. Longer terms first, so "new york times" wins over "york".
 */
export function applyGlossary(segments: Segment[], terms: GlossaryTerm[]): Segment[] {
  if (terms.length === 0) return segments.map((s) => ({ ...s }));
  const ordered = [...terms].sort((a, b) => b.term.length - a.term.length);
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(${ordered.map((t) => escapeRegExp(t.term)).join("|")})(?![\\p{L}\\p{N}])`, "giu");
  const lookup = new Map(ordered.map((t) => [t.term.toLowerCase(), t.preferred]));
  return segments.map((s) => ({ ...s, text: s.text.replace(pattern, (m) => lookup.get(m.toLowerCase()) ?? m) }));
}

/**
 * Names a glossary by its content (the terms and their spellings, in a fixed order): a transcript
 * records the stamp of the glossary its `glossary` layer was built with, so a layer built before any
 * later change, or by a rebuild an error cut short, is recognised and rebuilt before it is read.
 */
export async function glossaryStamp(terms: readonly GlossaryTerm[]): Promise<string> {
  const pairs = terms.map((t) => [t.term, t.preferred]).sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
  return (await sha256Hex(JSON.stringify(pairs))).slice(0, 32);
}
