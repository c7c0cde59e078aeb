import type { GlossaryDrop, GlossaryEntry } from "./interface";

/**
 * Protecting glossary terms through any backend. Two ways, by what the backend can be told:
 *
 * - `placeholder` (Apertium, m2m100: engines that take no instructions): each occurrence of a term
 *   in the source becomes a token the engine passes through as an unknown word, `Xg<n>x` (letters
 *   around a number: checked through every installed Apertium mode, which keeps it whole, while
 *   `ZZG1` is lower-cased sentence-initially in en-eo and `GLOSSA1` is analysed as a Galician
 *   word). After translation each token, in whatever case the engine gave it back, becomes the
 *   entry's preferred spelling. The engine translates the sentence around an unknown noun, which
 *   can cost agreement (`the Xg1x team` → `el Xg1x el equipo`): the term is kept, the grammar
 *   around it is the engine's.
 * - `instruction` (language models): the texts go as they are, the prompt lists each term with
 *   its required spelling (`instructionLines`), and afterwards the preferred spelling is written
 *   over the term or any other casing of the preferred spelling.
 *
 * Either way an occurrence the translation no longer carries (the engine dropped the token, or the
 * model wrote its own word) is a GlossaryDrop: reported, the translation kept as it is.
 */
export type GlossaryStyle = "placeholder" | "instruction";

export interface ProtectedTexts {
  /** What the engine is given. */
  texts: string[];
  /** Which entries each source text contains, with how many occurrences. */
  found: Map<number, number>[];
  /** The entries found in any text, for an instruction. */
  used: GlossaryEntry[];
}

export interface RestoredTexts {
  texts: string[];
  dropped: GlossaryDrop[];
}

const PLACEHOLDER = /xg(\d+)x/gi;

export function placeholder(n: number): string {
  return `Xg${n}x`;
}

/** Entries that can be matched (a non-empty term), longest term first so "New York City" wins over "New York". */
function usable(glossary: readonly GlossaryEntry[]): GlossaryEntry[] {
  return glossary.filter((e) => e.term.trim() !== "").sort((a, b) => b.term.trim().length - a.term.trim().length);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A term on word boundaries (letters and digits of any script), case-insensitively, inner spaces as any whitespace. */
function termPattern(term: string): RegExp {
  const body = term.trim().split(/\s+/).map(escape).join("\\s+");
  return new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, "giu");
}

export function protect(texts: readonly string[], glossary: readonly GlossaryEntry[] = [], style: GlossaryStyle): ProtectedTexts {
  const entries = usable(glossary);
  const patterns = entries.map((e) => termPattern(e.term));
  const used = new Set<number>();
  const found: Map<number, number>[] = [];
  const out = texts.map((text) => {
    const counts = new Map<number, number>();
    const originals: string[] = [];
    let t = text;
    entries.forEach((_, i) => {
      // Each match is taken out before the next (shorter) term is looked for, so it cannot match inside a longer one.
      t = t.replace(patterns[i]!, (m) => {
        counts.set(i, (counts.get(i) ?? 0) + 1);
        used.add(i);
        if (style === "placeholder") return placeholder(i + 1);
        originals.push(m);
        return `\u0000${originals.length - 1}\u0000`;
      });
    });
    found.push(counts);
    return style === "placeholder" ? t : t.replace(/\u0000(\d+)\u0000/g, (_m, k: string) => originals[Number(k)]!);
  });
  return { texts: out, found, used: [...used].sort((a, b) => a - b).map((i) => entries[i]!) };
}

/** Writes each entry's preferred spelling into the translations and lists the occurrences they lost. */
export function restore(
  translated: readonly string[],
  prot: ProtectedTexts,
  glossary: readonly GlossaryEntry[] = [],
  style: GlossaryStyle,
): RestoredTexts {
  const entries = usable(glossary);
  const dropped: GlossaryDrop[] = [];
  const texts = translated.map((text, index) => {
    const counts = prot.found[index] ?? new Map<number, number>();
    let t = text;
    const seen = new Map<number, number>();
    if (style === "placeholder") {
      t = t.replace(PLACEHOLDER, (m, n: string) => {
        const i = Number(n) - 1;
        const entry = entries[i];
        if (!entry || !counts.has(i)) return m;
        seen.set(i, (seen.get(i) ?? 0) + 1);
        return entry.preferred;
      });
    } else {
      for (const [i] of counts) {
        const entry = entries[i]!;
        let n = 0;
        for (const variant of new Set([entry.preferred, entry.term])) {
          t = t.replace(termPattern(variant), () => {
            n += 1;
            return entry.preferred;
          });
        }
        seen.set(i, n);
      }
    }
    for (const [i, expected] of counts) {
      const entry = entries[i]!;
      for (let k = seen.get(i) ?? 0; k < expected; k++) dropped.push({ index, term: entry.term, preferred: entry.preferred });
    }
    return t;
  });
  return { texts, dropped };
}

/** For a language model's instructions: one line per entry used in the texts shown. */
export function instructionLines(used: readonly GlossaryEntry[]): string[] {
  return used.map((e) => `- "${e.term}" → write exactly "${e.preferred}" (do not translate it)`);
}

/** For a language model's retry: the translations that lost a term. */
export function glossaryIssues(drops: readonly GlossaryDrop[], offset = 0): string[] {
  return drops.map((d) => `translations[${d.index - offset}]: the glossary requires "${d.preferred}" for "${d.term}"`);
}
