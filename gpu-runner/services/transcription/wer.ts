/**
 * Word error rate: (substitutions + deletions + insertions) / reference words, from a word-level
 * Levenshtein alignment. Text is compared case-insensitively without punctuation, so engines that
 * punctuate (Whisper) and engines that do not (PocketSphinx) are scored alike.
 */
export function normaliseForWer(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s]/gu, " ")
    .split(/\s+/)
    .filter(Boolean);
}

export interface WerResult {
  wer: number;
  errors: number;
  referenceWords: number;
}

export function wordErrorRate(reference: string, hypothesis: string): WerResult {
  const ref = normaliseForWer(reference);
  const hyp = normaliseForWer(hypothesis);
  // One row of the DP table at a time: O(|hyp|) memory even for an hour of speech.
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const cur = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const sub = prev[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      cur.push(Math.min(sub, prev[j]! + 1, cur[j - 1]! + 1));
    }
    prev = cur;
  }
  const errors = prev[hyp.length]!;
  return { wer: ref.length ? errors / ref.length : hyp.length ? 1 : 0, errors, referenceWords: ref.length };
}
