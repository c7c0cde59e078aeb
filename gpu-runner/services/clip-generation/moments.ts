import { columns, joinWords } from "../../../contracts/text-words";
import { countIn, meanEnergy, type Sentence, type Timeline } from "./timeline";

/**
 * Finding the moments worth a clip. A candidate is every run of whole sentences whose length is
 * within [minSec, maxSec]; it is scored, and the best non-overlapping ones are kept.
 *
 * The score (0..1) is a weighted sum of six parts, each 0..1 (docs/api.md, "How moments are ranked"):
 *   hook      0.25  the first 3 s: a question, a direct address ("you"), a number or a strong word,
 *                   spoken briskly and louder than the source's median
 *   complete  0.20  it ends on a sentence end followed by a real pause, and starts after one
 *   keywords  0.20  density of the source's own keywords (frequent content words) in the window
 *   energy    0.15  mean loudness against the source's loudness range
 *   speakers  0.10  speaker changes (a conversation moves), saturating at 3
 *   scenes    0.10  scene cuts per 10 s (visual pace), saturating at 2
 */

export const SCORE_WEIGHTS = { hook: 0.25, complete: 0.2, keywords: 0.2, energy: 0.15, speakers: 0.1, scenes: 0.1 } as const;
export type ScorePart = keyof typeof SCORE_WEIGHTS;

export interface Moment {
  /** Clip bounds in the source: the first word's start and the last word's end, padded into the silence around them. */
  start: number;
  end: number;
  firstSentence: number;
  lastSentence: number;
  score: number;
  scoreParts: Record<ScorePart, number>;
  text: string;
  title: string;
}

export interface MomentOptions {
  minSec: number;
  maxSec: number;
  maxClips: number;
}

const STOPWORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have he her here him his how i if in into is it its " +
    "just like me my no not now of on or our out so some than that the their them then there these they this to too up us was we " +
    "were what when where which who why will with would you your yeah um uh oh okay well really very got get going go know think " +
    "one two said say says thing things lot also about over more most much many any all been being because"
  ).split(" "),
);
const HOOK_WORDS = new Set(
  "why how what secret never always best worst truth mistake imagine listen stop wait actually biggest nobody everyone first must".split(
    " ",
  ),
);
/** A word's key for keyword counts: lower case, letters and digits of any script. */
const norm = (w: string) => w.toLowerCase().replace(/[^\p{L}\p{M}\p{N}']/gu, "");

/** The source's keywords: content words that recur, weighted by how often (log-scaled). */
export function keywordsOf(sentences: readonly Sentence[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of sentences)
    for (const w of s.words) {
      const k = norm(w.word);
      // Under three columns: a one- or two-letter Latin word, or a single CJK character, is too short to be a keyword.
      if (columns(k) < 3 || STOPWORDS.has(k)) continue;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
  const weights = new Map<string, number>();
  for (const [k, n] of counts) if (n >= 2) weights.set(k, Math.log2(1 + n));
  return weights;
}

/** A title a person could publish: the window's most keyword-dense sentence, trimmed to about eight words. */
export function titleOf(sentences: readonly Sentence[], keywords: ReadonlyMap<string, number>): string {
  let best = sentences[0];
  let bestScore = -1;
  for (const s of sentences) {
    const score = s.words.reduce((n, w) => n + (keywords.get(norm(w.word)) ?? 0), 0) / Math.sqrt(Math.max(1, s.words.length));
    if (score > bestScore) {
      bestScore = score;
      best = s;
    }
  }
  const words = (best?.words ?? [])
    .map((w) => w.word.trim().replace(/^[^\p{L}\p{N}']+|[^\p{L}\p{M}\p{N}'?!？！]+$/gu, ""))
    .filter((w) => w !== "");
  const text = joinWords(words.slice(0, 8)) + (words.length > 8 ? "…" : "");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Scores one window of sentences [i, j]. */
function score(tl: Timeline, i: number, j: number, keywords: ReadonlyMap<string, number>, range: { lo: number; hi: number }): Moment {
  const ss = tl.sentences.slice(i, j + 1);
  const start = ss[0]!.start;
  const end = ss[ss.length - 1]!.end;
  const dur = Math.max(0.1, end - start);
  const words = ss.flatMap((s) => s.words);

  const opening = words.filter((w) => w.start < start + 3);
  const hookWords = opening.filter((w) => HOOK_WORDS.has(norm(w.word)) || /^\d/.test(w.word) || norm(w.word) === "you").length;
  const pace = Math.min(1, opening.length / 9); // ~3 words a second is brisk speech
  const openingLoud = clamp01((meanEnergy(tl.energy, start, start + 3) - range.lo) / Math.max(1, range.hi - range.lo));
  const question = /\?$/.test(ss[0]!.text) ? 1 : 0;
  const hook = clamp01(0.35 * Math.min(1, hookWords / 2) + 0.25 * pace + 0.2 * openingLoud + 0.2 * question);

  const before = i > 0 ? tl.sentences[i - 1]!.pauseAfter : Number.POSITIVE_INFINITY;
  const last = ss[ss.length - 1]!;
  const complete = clamp01((last.final ? 0.6 : 0) + (last.pauseAfter >= 0.7 ? 0.2 : 0) + (before >= 0.4 ? 0.2 : 0));

  const kwSum = words.reduce((n, w) => n + (keywords.get(norm(w.word)) ?? 0), 0);
  const keywordsPart = clamp01(kwSum / Math.max(1, words.length) / 0.8);

  const energy = clamp01((meanEnergy(tl.energy, start, end) - range.lo) / Math.max(1, range.hi - range.lo));
  const speakers = Math.min(1, countIn(tl.speakerChanges, start, end) / 3);
  const scenes = Math.min(1, ((countIn(tl.cuts, start, end) / dur) * 10) / 2);

  const scoreParts = { hook, complete, keywords: keywordsPart, energy, speakers, scenes };
  const total = (Object.keys(SCORE_WEIGHTS) as ScorePart[]).reduce((n, k) => n + SCORE_WEIGHTS[k] * scoreParts[k], 0);
  return {
    start,
    end,
    firstSentence: i,
    lastSentence: j,
    score: round3(total),
    scoreParts: Object.fromEntries(Object.entries(scoreParts).map(([k, v]) => [k, round3(v)])) as Record<ScorePart, number>,
    text: joinWords(ss.map((s) => s.text)),
    title: titleOf(ss, keywords),
  };
}

/**
 * Every candidate window and the chosen moments, best first. A source whose whole speech is shorter
 * than `minSec` gives one moment of all of it (a short video still gets a clip).
 */
export function findMoments(tl: Timeline, opts: MomentOptions): { candidates: number; moments: Moment[] } {
  const s = tl.sentences;
  if (s.length === 0) return { candidates: 0, moments: [] };
  const keywords = keywordsOf(s);
  const levels = tl.energy.db.filter((d) => d > -80).sort((a, b) => a - b);
  const range = { lo: levels[Math.floor(levels.length * 0.1)] ?? -60, hi: levels[Math.floor(levels.length * 0.95)] ?? -10 };

  const candidates: Moment[] = [];
  for (let i = 0; i < s.length; i++) {
    for (let j = i; j < s.length; j++) {
      const dur = s[j]!.end - s[i]!.start;
      if (dur > opts.maxSec) break;
      if (dur >= opts.minSec) candidates.push(score(tl, i, j, keywords, range));
    }
  }
  if (candidates.length === 0) {
    const whole = score(tl, 0, s.length - 1, keywords, range);
    if (whole.end - whole.start <= opts.maxSec) candidates.push(whole);
  }
  // Best first; among equals the earlier one, so results are stable.
  candidates.sort((a, b) => b.score - a.score || a.start - b.start);
  const chosen: Moment[] = [];
  for (const c of candidates) {
    if (chosen.length >= opts.maxClips) break;
    if (chosen.some((m) => c.firstSentence <= m.lastSentence && m.firstSentence <= c.lastSentence)) continue;
    chosen.push(c);
  }
  return { candidates: candidates.length, moments: chosen.map((m) => pad(tl, m)) };
}

/** Widens a moment into the silence around it (at most 0.25 s before, 0.5 s after), never into a neighbouring word. */
function pad(tl: Timeline, m: Moment): Moment {
  const prevEnd = m.firstSentence > 0 ? tl.sentences[m.firstSentence - 1]!.end : 0;
  const nextStart = tl.sentences[m.lastSentence + 1]?.start ?? tl.durationSec;
  const start = Math.max(prevEnd, m.start - 0.25, 0);
  const end = Math.min(nextStart, m.end + 0.5, tl.durationSec);
  return { ...m, start: round3(start), end: round3(Math.max(end, m.end)) };
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
const round3 = (x: number) => Math.round(x * 1000) / 1000;
