import type { Segment } from "../../contracts/transcript";

export interface GlossaryTerm {
  term: string;
  preferred: string;
}

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
