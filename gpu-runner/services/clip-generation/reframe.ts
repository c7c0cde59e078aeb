import type { FrameObservation } from "../../engines/vision/interface";

/**
 * Where a portrait or square crop looks, over time. Targets come from the sampled frames: the
 * active speaker (the face whose mouth moves most while there is speech), else the largest face,
 * else the salient region, else the centre. The path is then smoothed so that it
 *   - holds still while the target stays inside a dead zone (a share of the crop width) around
 *     the crop's centre: no per-frame jitter;
 *   - pans with an ease-in-out curve, no faster than `maxPanSpeed` crop widths per second, when
 *     the target leaves the dead zone: at once for a new speaker (their mouth moved over the next
 *     second of samples), after `confirmSec` for a face or salient region (a glance is not a move);
 *   - cuts at once at a scene cut, where a pan would sweep across the edit.
 */

export interface ReframeOptions {
  /** Source frame size, pixels. */
  srcW: number;
  srcH: number;
  /** Crop width, pixels (the crop spans the source's full height). */
  cropW: number;
  deadZone: number;
  maxPanSpeed: number;
  /** A target must hold this long before the crop moves to it. */
  confirmSec?: number;
}

/** One piece of the crop's left edge x(t): constant, or an eased move from x0 to x1 over [t0, t1]. */
export interface CropPiece {
  t0: number;
  t1: number;
  x0: number;
  x1: number;
}

export type FramingSource = "speaker" | "face" | "salient" | "centre";

export interface Target {
  t: number;
  /** Centre x of what the crop should show, 0..1 of the source width. */
  cx: number;
  source: FramingSource;
}

/**
 * How much a face's mouth moves from time t on: the spread of its openness over the next samples.
 * Clips are rendered offline, so the window can look ahead: a new speaker is recognised when they
 * start talking, not a window later.
 */
function mouthActivity(track: Array<{ t: number; mouth: number | null }>, t: number): number {
  const near = track.filter((p) => p.t >= t - 0.2 && p.t <= t + 0.8 && p.mouth !== null).map((p) => p.mouth as number);
  if (near.length < 2) return near[0] ?? 0;
  const mean = near.reduce((a, b) => a + b, 0) / near.length;
  return Math.sqrt(near.reduce((a, b) => a + (b - mean) ** 2, 0) / near.length) + mean * 0.25;
}

/**
 * The target of every sampled frame. Faces are linked into tracks by position (nearest centre
 * within 12 % of the width) so mouth movement is measured per person, not per frame.
 */
export function targetsOf(observations: readonly FrameObservation[], speaking: (t: number) => boolean): Target[] {
  const tracks: Array<{ cx: number; points: Array<{ t: number; mouth: number | null }> }> = [];
  const faceTrack = new Map<string, number>();
  for (const [fi, o] of observations.entries()) {
    for (const [k, f] of o.faces.entries()) {
      if (f.score < 0.5) continue;
      const cx = f.box.x + f.box.width / 2;
      let best = -1;
      let bestD = 0.12;
      tracks.forEach((tr, i) => {
        const d = Math.abs(tr.cx - cx);
        if (d < bestD) {
          bestD = d;
          best = i;
        }
      });
      if (best < 0) {
        tracks.push({ cx, points: [] });
        best = tracks.length - 1;
      }
      const tr = tracks[best]!;
      tr.cx = tr.cx * 0.7 + cx * 0.3;
      tr.points.push({ t: o.t, mouth: f.mouthOpen });
      faceTrack.set(`${fi}:${k}`, best);
    }
  }
  return observations.map((o, fi) => {
    const faces = o.faces.map((f, k) => ({ f, track: faceTrack.get(`${fi}:${k}`) })).filter((x) => x.track !== undefined);
    if (faces.length > 0) {
      if (faces.length > 1 && speaking(o.t)) {
        const ranked = faces
          .map((x) => ({ ...x, activity: mouthActivity(tracks[x.track!]!.points, o.t) }))
          .sort((a, b) => b.activity - a.activity);
        const [top, second] = ranked;
        // Only call someone the speaker when their mouth clearly moves more than the others'.
        if (top && second && top.activity > second.activity * 1.3 + 0.02)
          return { t: o.t, cx: top.f.box.x + top.f.box.width / 2, source: "speaker" as const };
      }
      const largest = faces.reduce((a, b) => (b.f.box.width * b.f.box.height > a.f.box.width * a.f.box.height ? b : a));
      return { t: o.t, cx: largest.f.box.x + largest.f.box.width / 2, source: faces.length === 1 && speaking(o.t) ? "speaker" : "face" };
    }
    if (o.salient) return { t: o.t, cx: o.salient.x + o.salient.width / 2, source: "salient" as const };
    return { t: o.t, cx: 0.5, source: "centre" as const };
  });
}

/**
 * The smoothed crop path over [start, end] (source seconds), as pieces in clip time (0 = start).
 * `cuts` are scene cut times in the source.
 */
export function planCrop(
  targets: readonly Target[],
  cuts: readonly number[],
  start: number,
  end: number,
  opts: ReframeOptions,
): CropPiece[] {
  const maxX = Math.max(0, opts.srcW - opts.cropW);
  const toX = (cx: number) => clamp(Math.round(cx * opts.srcW - opts.cropW / 2), 0, maxX);
  const dead = opts.deadZone * opts.cropW;
  const speed = opts.maxPanSpeed * opts.cropW; // px per second
  const confirm = opts.confirmSec ?? 0.5;
  const inClip = targets.filter((t) => t.t >= start - 0.5 && t.t <= end);
  const first = inClip.find((t) => t.t >= start) ?? inClip[inClip.length - 1];
  let x = toX(first?.cx ?? 0.5);
  const pieces: CropPiece[] = [];
  let now = 0;
  let pending: { since: number; x: number } | null = null;
  const clipCuts = cuts.filter((c) => c > start && c < end).map((c) => c - start);

  for (const tg of inClip) {
    const t = Math.max(0, tg.t - start);
    if (t < now) continue;
    const want = toX(tg.cx);
    const cutBetween = clipCuts.some((c) => c > now && c <= t);
    if (Math.abs(want - x) <= dead) {
      pending = null;
      continue;
    }
    if (cutBetween) {
      // A cut: jump with the edit, no pan across it.
      const at = clipCuts.find((c) => c > now && c <= t)!;
      pieces.push({ t0: now, t1: at, x0: x, x1: x });
      x = want;
      now = at;
      pending = null;
      continue;
    }
    if (!pending || Math.abs(pending.x - want) > dead) pending = { since: t, x: want };
    // A speaker target is already confirmed by the mouth-movement window; faces and salient regions
    // must hold for `confirm` seconds first.
    if (tg.source !== "speaker" && t - pending.since + 1e-9 < confirm && confirm > 0) continue;
    const dur = Math.max(0.3, Math.abs(want - x) / speed);
    pieces.push({ t0: now, t1: t, x0: x, x1: x });
    pieces.push({ t0: t, t1: t + dur, x0: x, x1: want });
    x = want;
    now = t + dur;
    pending = null;
  }
  const total = end - start;
  if (now < total) pieces.push({ t0: now, t1: total, x0: x, x1: x });
  return pieces.filter((p) => p.t1 > p.t0);
}

/** x(t) of a crop path; eased (smoothstep) inside a pan. */
export function cropXAt(pieces: readonly CropPiece[], t: number): number {
  const p = pieces.find((q) => t >= q.t0 && t < q.t1) ?? pieces[pieces.length - 1];
  if (!p) return 0;
  if (p.x0 === p.x1) return p.x0;
  const u = clamp((t - p.t0) / (p.t1 - p.t0), 0, 1);
  return p.x0 + (p.x1 - p.x0) * (3 * u * u - 2 * u * u * u);
}

/** The crop path as an ffmpeg expression of `t` (the crop filter evaluates x per frame). */
export function cropExpression(pieces: readonly CropPiece[]): string {
  const last = pieces[pieces.length - 1];
  if (!last) return "0";
  let expr = String(last.x1);
  for (let i = pieces.length - 1; i >= 0; i--) {
    const p = pieces[i]!;
    const value =
      p.x0 === p.x1
        ? String(p.x0)
        : `${p.x0}+(${p.x1 - p.x0})*(3*pow((t-${fx(p.t0)})/${fx(p.t1 - p.t0)},2)-2*pow((t-${fx(p.t0)})/${fx(p.t1 - p.t0)},3))`;
    expr = `if(lt(t,${fx(p.t1)}),${value},${expr})`;
  }
  return expr;
}

/** Share of the clip's sampled frames framed by each source. */
export function framingShares(targets: readonly Target[], start: number, end: number): Record<string, number> {
  const inClip = targets.filter((t) => t.t >= start && t.t <= end);
  const out: Record<string, number> = {};
  for (const t of inClip) out[t.source] = (out[t.source] ?? 0) + 1 / inClip.length;
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, Math.round(v * 100) / 100]));
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
const fx = (x: number) => x.toFixed(3);
