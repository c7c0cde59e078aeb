import { munkres, negateMatrix } from "munkres";

/**
 * Scores a diarization against the truth of a recording, exactly (on the boundaries of the turns,
 * not on a time grid).
 *
 * Reference turns may overlap (two people speaking at once); so may hypothesis turns, though the
 * engines never emit that. Labels on the two sides are unrelated names: each hypothesis label is
 * mapped onto at most one reference speaker, by the one-to-one mapping that maximises the time they
 * share (the Hungarian algorithm, `munkres`), as NIST's md-eval and pyannote.metrics do.
 *
 * - Diarization error rate: (missed speech + false alarm + speaker confusion) ÷ reference speech
 *   time. Every instant counts once per person speaking: with two reference speakers and one
 *   hypothesis speaker the second speaker's time is missed. Within `collarSec` either side of every
 *   reference turn boundary nothing is scored (md-eval's collar; 0 scores everything).
 * - Attributed time: of the time the hypothesis gives to a speaker, the share given to one of the
 *   people really speaking then (accuracy), and of the time someone speaks, the share the hypothesis
 *   gives to anyone (coverage). No collar.
 */
export interface ScoredTurn {
  /** Seconds. */
  start: number;
  end: number;
  speaker: string;
}

export interface DiarizationError {
  /** Reference speech scored, in speaker-seconds (two people at once: two seconds a second). */
  referenceSec: number;
  missedSec: number;
  falseAlarmSec: number;
  confusionSec: number;
  /** (missed + false alarm + confusion) ÷ reference; 0 when there is no reference speech. */
  rate: number;
  /** Hypothesis label → the reference speaker it was mapped onto. */
  mapping: Map<string, string>;
}

export interface AttributionScore {
  /** Of the time the engine gave to a speaker, the share given to the right one (best one-to-one label mapping). */
  accuracy: number;
  /** Of the time someone really speaks, the share the engine gave to any speaker. */
  coverage: number;
}

interface Piece {
  seconds: number;
  /** Reference speakers active in the piece. */
  ref: ReadonlySet<string>;
  /** Hypothesis labels active in the piece. */
  hyp: ReadonlySet<string>;
}

export function diarizationError(
  reference: readonly ScoredTurn[],
  hypothesis: readonly ScoredTurn[],
  opts: { collarSec: number },
): DiarizationError {
  const pieces = timeline(reference, hypothesis, opts.collarSec);
  const mapping = bestMapping(pieces);
  let referenceSec = 0;
  let missedSec = 0;
  let falseAlarmSec = 0;
  let confusionSec = 0;
  for (const p of pieces) {
    const nRef = p.ref.size;
    const nHyp = p.hyp.size;
    const correct = [...p.hyp].filter((h) => p.ref.has(mapping.get(h) ?? "")).length;
    referenceSec += p.seconds * nRef;
    missedSec += p.seconds * Math.max(0, nRef - nHyp);
    falseAlarmSec += p.seconds * Math.max(0, nHyp - nRef);
    confusionSec += p.seconds * (Math.min(nRef, nHyp) - correct);
  }
  const errors = missedSec + falseAlarmSec + confusionSec;
  return { referenceSec, missedSec, falseAlarmSec, confusionSec, rate: referenceSec > 0 ? errors / referenceSec : 0, mapping };
}

export function attribution(reference: readonly ScoredTurn[], hypothesis: readonly ScoredTurn[]): AttributionScore {
  const pieces = timeline(reference, hypothesis, 0);
  const mapping = bestMapping(pieces);
  let attributed = 0;
  let right = 0;
  let spoken = 0;
  let covered = 0;
  for (const p of pieces) {
    for (const h of p.hyp) {
      attributed += p.seconds;
      if (p.ref.has(mapping.get(h) ?? "")) right += p.seconds;
    }
    if (p.ref.size > 0) {
      spoken += p.seconds;
      if (p.hyp.size > 0) covered += p.seconds;
    }
  }
  return { accuracy: attributed > 0 ? right / attributed : 0, coverage: spoken > 0 ? covered / spoken : 0 };
}

/** The recording cut at every boundary into pieces where nobody starts or stops, minus the collars. */
function timeline(reference: readonly ScoredTurn[], hypothesis: readonly ScoredTurn[], collarSec: number): Piece[] {
  const collars = mergeSpans(
    collarSec > 0 ? reference.flatMap((t) => [t.start, t.end]).map((b) => ({ start: b - collarSec, end: b + collarSec })) : [],
  );
  const cuts = [
    ...new Set([...reference, ...hypothesis, ...collars].flatMap((t) => [t.start, t.end]).filter((x) => Number.isFinite(x))),
  ].sort((a, b) => a - b);
  const activeAt = (turns: readonly ScoredTurn[], t: number) =>
    new Set(turns.filter((x) => x.start <= t && t < x.end).map((x) => x.speaker));
  const pieces: Piece[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const mid = (cuts[i]! + cuts[i + 1]!) / 2;
    if (collars.some((c) => c.start <= mid && mid < c.end)) continue;
    const ref = activeAt(reference, mid);
    const hyp = activeAt(hypothesis, mid);
    if (ref.size + hyp.size > 0) pieces.push({ seconds: cuts[i + 1]! - cuts[i]!, ref, hyp });
  }
  return pieces;
}

/** The one-to-one hypothesis → reference mapping with the most shared time; labels sharing no time stay unmapped. */
function bestMapping(pieces: readonly Piece[]): Map<string, string> {
  const hyps = [...new Set(pieces.flatMap((p) => [...p.hyp]))];
  const refs = [...new Set(pieces.flatMap((p) => [...p.ref]))];
  if (hyps.length === 0 || refs.length === 0) return new Map();
  const shared = hyps.map(() => refs.map(() => 0));
  for (const p of pieces) for (const h of p.hyp) for (const r of p.ref) shared[hyps.indexOf(h)]![refs.indexOf(r)]! += p.seconds;
  const cost = shared.map((row) => [...row]);
  // munkres minimises: the negated shared time is the cost of a pairing.
  negateMatrix(cost);
  return new Map(munkres(cost).flatMap(([h, r]) => (shared[h]![r]! > 0 ? [[hyps[h]!, refs[r]!] as const] : [])));
}

function mergeSpans(spans: readonly { start: number; end: number }[]): { start: number; end: number }[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const out: { start: number; end: number }[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}
