import type { GlossaryEntry } from "../../engines/translation/interface";

/**
 * What became of the glossary: how many terms the source held, and each one whose preferred spelling
 * is missing from its translated segment (an engine may drop or inflect a term; the record says so
 * rather than hiding it). A term counts as present in the source in either spelling.
 */
export function glossaryReport(
  source: readonly { id: number; text: string }[],
  translated: readonly string[],
  glossary: readonly GlossaryEntry[],
): { termsProtected: number; missing: Array<{ segmentId: number; term: string }> } {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const word = (s: string) => new RegExp(`(?<![\\p{L}\\p{N}])${escape(s)}(?![\\p{L}\\p{N}])`, "iu");
  let termsProtected = 0;
  const missing: Array<{ segmentId: number; term: string }> = [];
  source.forEach((seg, i) => {
    for (const g of glossary) {
      if (!word(g.term).test(seg.text) && !word(g.preferred).test(seg.text)) continue;
      termsProtected++;
      if (!(translated[i] ?? "").includes(g.preferred)) missing.push({ segmentId: seg.id, term: g.preferred });
    }
  });
  return { termsProtected, missing };
}
