import type { VisualSummary } from "../../engines/category/interface";
import type { FrameObservation } from "../../engines/vision/interface";
import type { Target } from "./reframe";
import type { Timeline, TimedWord } from "./timeline";

/**
 * What the frames and the transcript say about the video as a whole, for the timeline and the
 * category: who speaks when, how often the framing changes speaker, how much of it is speech.
 */

/** Whether someone is speaking at t (a word within 0.3 s). */
export function speechTest(words: readonly TimedWord[]): (t: number) => boolean {
  return (t) => words.some((w) => t >= w.start - 0.3 && t <= w.end + 0.3);
}

export function speechShare(words: ReadonlyArray<{ start: number; end: number }>, duration: number): number {
  if (duration <= 0) return 0;
  return Math.min(1, words.reduce((n, w) => n + Math.max(0, w.end - w.start), 0) / duration);
}

/** Times where the framing moves from one speaker to another (targets whose centre jumps by a fifth of the width). */
export function speakerChanges(targets: readonly Target[]): number[] {
  const out: number[] = [];
  let last: Target | undefined;
  for (const t of targets) {
    if (t.source !== "speaker") continue;
    if (last && Math.abs(t.cx - last.cx) > 0.2) out.push(t.t);
    last = t;
  }
  return out;
}

export function visualSummary(obs: readonly FrameObservation[], targets: readonly Target[], tl: Timeline, duration: number): VisualSummary {
  const speakers = new Set(targets.filter((t) => t.source === "speaker").map((t) => Math.round(t.cx * 4)));
  return {
    meanFaces: obs.length > 0 ? mean(obs.map((o) => o.faces.filter((f) => f.score >= 0.5).length)) : null,
    maxFaces: obs.length > 0 ? Math.max(...obs.map((o) => o.faces.filter((f) => f.score >= 0.5).length)) : null,
    cutsPerMinute: duration > 0 ? (tl.cuts.length / duration) * 60 : 0,
    speechShare: speechShare(tl.words, duration),
    speakers: obs.length > 0 ? speakers.size : null,
  };
}

export const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
