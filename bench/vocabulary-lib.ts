import type { Word } from "../contracts/transcript";
import { normaliseForWer, wordErrorRate } from "../gpu-runner/services/transcription/wer";

/**
 * Scoring for bench/vocabulary.ts, per sentence of the set: recognised words are given to the
 * sentence whose time window (its audible part, widened to the middle of the pauses around it)
 * holds their midpoint.
 *
 * - Term recall: of the terms' occurrences in the reference, the share found in the hypothesis,
 *   compared case-insensitively without punctuation, a multi-word term as a sequence (a sentence
 *   saying a term n times and recognised with it m times counts min(n, m)).
 * - WER of the rest: the words that are not terms. The reference drops its term words; the
 *   hypothesis drops what a word-level alignment pairs with them (matches and substitutions) and the
 *   insertions next to them (the extra words of a term heard as several), then the project's WER
 *   (services/transcription/wer.ts) compares what is left.
 */

export interface ScoredSentence {
  text: string;
  terms: readonly string[];
  start: number;
  end: number;
}

export interface Score {
  termOccurrences: number;
  termsRecognised: number;
  restErrors: number;
  restWords: number;
  allErrors: number;
  allWords: number;
}

export const emptyScore = (): Score => ({ termOccurrences: 0, termsRecognised: 0, restErrors: 0, restWords: 0, allErrors: 0, allWords: 0 });

export function addScores(a: Score, b: Score): Score {
  return {
    termOccurrences: a.termOccurrences + b.termOccurrences,
    termsRecognised: a.termsRecognised + b.termsRecognised,
    restErrors: a.restErrors + b.restErrors,
    restWords: a.restWords + b.restWords,
    allErrors: a.allErrors + b.allErrors,
    allWords: a.allWords + b.allWords,
  };
}

/** The recognised words of each sentence. */
export function wordsBySentence(sentences: readonly ScoredSentence[], words: readonly Word[]): Word[][] {
  const edges = sentences.map((s, i) => {
    const prev = sentences[i - 1];
    const next = sentences[i + 1];
    return { from: prev ? (prev.end + s.start) / 2 : -Infinity, to: next ? (s.end + next.start) / 2 : Infinity };
  });
  const out = sentences.map((): Word[] => []);
  for (const w of words) {
    const mid = (w.start + w.end) / 2;
    const i = edges.findIndex((e) => mid >= e.from && mid < e.to);
    if (i >= 0) out[i]!.push(w);
  }
  return out;
}

function countSequence(tokens: readonly string[], seq: readonly string[]): number {
  let n = 0;
  for (let i = 0; i + seq.length <= tokens.length; i++) {
    if (seq.every((t, j) => tokens[i + j] === t)) {
      n++;
      i += seq.length - 1;
    }
  }
  return n;
}

type Op = { kind: "ok" | "sub"; ref: number; hyp: number } | { kind: "del"; ref: number } | { kind: "ins"; hyp: number };

/** A minimum-edit alignment of two token lists (ties prefer a match or substitution). */
export function align(ref: readonly string[], hyp: readonly string[]): Op[] {
  const d = Array.from({ length: ref.length + 1 }, (_, i) =>
    Array.from({ length: hyp.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= ref.length; i++)
    for (let j = 1; j <= hyp.length; j++)
      d[i]![j] = Math.min(d[i - 1]![j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1), d[i - 1]![j]! + 1, d[i]![j - 1]! + 1);
  const ops: Op[] = [];
  let i = ref.length;
  let j = hyp.length;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0 && d[i]![j] === d[i - 1]![j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1)) {
      ops.push({ kind: ref[i - 1] === hyp[j - 1] ? "ok" : "sub", ref: i - 1, hyp: j - 1 });
      i--;
      j--;
    } else if (i > 0 && d[i]![j] === d[i - 1]![j]! + 1) {
      ops.push({ kind: "del", ref: i - 1 });
      i--;
    } else {
      ops.push({ kind: "ins", hyp: j - 1 });
      j--;
    }
  }
  return ops.reverse();
}

/**
 * Term occurrences recognised where the reference has none: for every term of the vocabulary, the
 * hypothesis's occurrences beyond the reference's.
 */
export function termFalseAlarms(sentence: Pick<ScoredSentence, "text">, words: readonly Word[], vocabulary: readonly string[]): number {
  const ref = normaliseForWer(sentence.text);
  const hyp = normaliseForWer(words.map((w) => w.word).join(" "));
  return vocabulary.reduce((n, term) => {
    const seq = normaliseForWer(term);
    return n + Math.max(0, countSequence(hyp, seq) - countSequence(ref, seq));
  }, 0);
}

export function scoreSentence(sentence: ScoredSentence, words: readonly Word[]): Score {
  const ref = normaliseForWer(sentence.text);
  const hyp = normaliseForWer(words.map((w) => w.word).join(" "));
  const termSeqs = sentence.terms.map((t) => normaliseForWer(t));

  let termsRecognised = 0;
  const seen = new Map<string, { seq: string[]; n: number }>();
  for (const seq of termSeqs) {
    const key = seq.join(" ");
    seen.set(key, { seq, n: (seen.get(key)?.n ?? 0) + 1 });
  }
  for (const { seq, n } of seen.values()) termsRecognised += Math.min(n, countSequence(hyp, seq));

  // Which reference tokens are term words: each listed occurrence, left to right.
  const isTerm = ref.map(() => false);
  let from = 0;
  for (const seq of termSeqs) {
    for (let i = from; i + seq.length <= ref.length; i++) {
      if (seq.every((t, j) => ref[i + j] === t)) {
        for (let j = 0; j < seq.length; j++) isTerm[i + j] = true;
        from = i + seq.length;
        break;
      }
    }
  }

  const ops = align(ref, hyp);
  const dropHyp = new Set<number>();
  const refOf = (k: number): number | undefined => {
    const op = ops[k];
    return op && op.kind !== "ins" ? op.ref : undefined;
  };
  ops.forEach((op, k) => {
    if ((op.kind === "ok" || op.kind === "sub") && isTerm[op.ref]) dropHyp.add(op.hyp);
    if (op.kind === "ins") {
      let a = k - 1;
      while (a >= 0 && ops[a]!.kind === "ins") a--;
      let b = k + 1;
      while (b < ops.length && ops[b]!.kind === "ins") b++;
      const before = refOf(a);
      const after = refOf(b);
      if ((before !== undefined && isTerm[before]) || (after !== undefined && isTerm[after])) dropHyp.add(op.hyp);
    }
  });
  const restRef = ref.filter((_, i) => !isTerm[i]);
  const restHyp = hyp.filter((_, j) => !dropHyp.has(j));
  const rest = wordErrorRate(restRef.join(" "), restHyp.join(" "));
  const all = wordErrorRate(ref.join(" "), hyp.join(" "));
  return {
    termOccurrences: termSeqs.length,
    termsRecognised,
    restErrors: rest.errors,
    restWords: rest.referenceWords,
    allErrors: all.errors,
    allWords: all.referenceWords,
  };
}
