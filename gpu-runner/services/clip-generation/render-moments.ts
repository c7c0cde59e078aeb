import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { LAYOUT_SIZE, type ClipGenerationResult, type ClipLayout } from "../../../contracts/clips";
import type { Settings } from "../../../contracts/settings";
import { StepFailure } from "../../../contracts/step-failure";
import type { FrameObservation, VisionEngine } from "../../engines/vision/interface";
import { mergeSpans, spansInCut, type AudioSpan, type RedactedAudioMode } from "../../media/redacted-audio";
import type { AcceptedSource } from "../../media/source";
import { mapLimit } from "../shared/map-limit";
import { analyzeAsProduced } from "./analysis";
import type { BrandLogo } from "./brand-logo";
import { buildAss, captionStyleFor } from "./captions";
import { sampleMoment, type LoudnessMeasure, type VideoInfo } from "./media";
import type { Moment } from "./moments";
import { framingShares, planCrop, targetsOf, type Target } from "./reframe";
import { cropSize, letterbox, renderClip } from "./render";
import type { Timeline } from "./timeline";

/**
 * The moments rendered while later ones are prepared. Each moment is prepared (one decode of it for
 * dense frames, exact cuts and the loudness measure, the frames analysed as they are written) one at
 * a time, in order, each as soon as the one before it is; up to `rendersAtOnce` clips render at
 * once, each as soon as its moment is prepared. A moment's dense frames join the analysis the next
 * moments are prepared from: each preparation takes the analysis as the one before left it and
 * returns it grown, so the crop of a later clip follows every frame analysed before it.
 */

/** Width of the analysis frames: detectors need faces, not detail. */
export const ANALYSIS_WIDTH = 640;
/** Seconds around a moment analysed densely and searched for exact cuts: the crop looks ahead up to a second. */
const DENSE_MARGIN_SEC = 1;
export const SCENE_THRESHOLD = 10;

/** The frames analysed so far: the sparse pass's, then each prepared moment's dense frames. */
export interface Analysis {
  observations: FrameObservation[];
  targets: Target[];
  denseFrames: number;
  denseFollowed: number;
}

/** What a moment's render needs beyond the timeline: the crop's targets, the exact cuts, the loudness measure. */
interface Prepared {
  targets: Target[];
  cuts: number[];
  loudness: LoudnessMeasure | null;
}

export interface RenderedClip {
  moment: Moment;
  video: string;
  poster: string;
  framing: Record<string, number>;
  /** Redacted spans silenced (or toned) in the clip's audio, after touching ones were merged. */
  redactedSpans: number;
}

export interface Brand {
  color: string;
  logo: BrandLogo | null;
  /** Why a logo that was set is not drawn. */
  logoNote: string | null;
}

export interface MomentWork {
  source: AcceptedSource;
  info: VideoInfo;
  framesDir: string;
  clipsDir: string;
  timeline: Timeline;
  cs: Settings["clips"];
  /** The engine for the frames around each moment; null when the source's own frames are dense enough, or vision is off. */
  denseEngine: VisionEngine | null;
  speaking: (t: number) => boolean;
  /** Names the frame sequences: one engine serves every job the runner is running. */
  clipGenerationId: string;
  layout: ClipLayout;
  fillStyle: ClipGenerationResult["fillStyle"];
  brand: Brand;
  captions: boolean;
  /** Caption names by speaker label: a clip where two people talk names each turn. */
  speakerNames: Readonly<Record<string, string>>;
  /** The transcript's redacted spans (seconds of the source) and how their audio is replaced; null: not redacted. */
  redaction: { spans: readonly AudioSpan[]; mode: RedactedAudioMode } | null;
}

export async function renderMoments(
  w: MomentWork,
  moments: readonly Moment[],
  start: Analysis,
  signal: AbortSignal,
): Promise<{ clips: RenderedClip[]; analysis: Analysis }> {
  const lookahead = new AbortController();
  const work = AbortSignal.any([signal, lookahead.signal]);
  const prepared: Array<Promise<{ prepared: Prepared; analysis: Analysis }>> = [];
  for (const [i, m] of moments.entries()) {
    const before = prepared[i - 1]?.then((p) => p.analysis) ?? Promise.resolve(start);
    const p = before.then((analysis) => prepareMoment(w, i, m, analysis, work));
    // Awaited in its turn; a render failing first must not leave it unhandled.
    p.catch(() => undefined);
    prepared.push(p);
  }
  try {
    const clips = await mapLimit(moments, w.cs.rendersAtOnce, work, async (m, renderSignal, i) =>
      renderMoment(w, i, m, (await prepared[i]!).prepared, renderSignal),
    );
    // Every moment was prepared before its clip rendered: the last preparation left the whole analysis.
    return { clips, analysis: (await prepared.at(-1))?.analysis ?? start };
  } finally {
    // Stops the moments still being prepared when a render failed.
    lookahead.abort();
  }
}

async function prepareMoment(
  w: MomentWork,
  i: number,
  m: Moment,
  analysis: Analysis,
  work: AbortSignal,
): Promise<{ prepared: Prepared; analysis: Analysis }> {
  const { cs, info } = w;
  const frames = w.denseEngine ? analyzeAsProduced(w.denseEngine, work) : null;
  // A frame of the dense grid with a sparse observation within half a period already has
  // its sample: analysing it again would cost a detector run for nothing.
  const half = 0.5 / cs.visionFps;
  const sparseNear = (t: number) => analysis.observations.some((o) => Math.abs(o.t - t) < half);
  const sample = await sampleMoment(w.source, join(w.framesDir, `moment-${i + 1}`), {
    start: m.start,
    end: m.end,
    margin: DENSE_MARGIN_SEC,
    frameRate: frames ? cs.visionFps : null,
    width: Math.min(ANALYSIS_WIDTH, info.width),
    sceneThreshold: SCENE_THRESHOLD,
    hasAudio: info.hasAudio,
    // The crop reads faces and mouths only: no body or eye models on these frames. They are
    // one sequence, so the engine may follow faces from frame to frame; the key names the
    // job, since one engine serves every job the runner is running.
    onFrame: (f) => {
      if (!sparseNear(f.t)) frames?.push(f, { bodies: false, eyes: false, sequence: `${w.clipGenerationId}/moment-${i + 1}` });
    },
    alone: i === 0,
    signal: work,
  });
  let grown = analysis;
  if (frames) {
    const more = await frames.done();
    const observations = [...analysis.observations, ...more].sort((a, b) => a.t - b.t);
    grown = {
      observations,
      targets: targetsOf(observations, w.speaking),
      denseFrames: analysis.denseFrames + more.length,
      denseFollowed: analysis.denseFollowed + more.filter((o) => o.followed).length,
    };
  }
  const cuts = [...w.timeline.cuts.filter((c) => c < sample.from || c > sample.to), ...sample.cuts].sort((a, b) => a - b);
  return { prepared: { targets: grown.targets, cuts, loudness: sample.loudness }, analysis: grown };
}

async function renderMoment(w: MomentWork, i: number, m: Moment, prepared: Prepared, signal: AbortSignal): Promise<RenderedClip> {
  const { layout, info, cs } = w;
  const { targets, cuts, loudness } = prepared;
  const dur = m.end - m.start;
  const { width, height } = LAYOUT_SIZE[layout];
  const crops = layout === "vertical_9_16" || layout === "square_1_1";
  const { cropW, cropH } = cropSize(info.width, info.height, layout);
  const crop =
    crops && targets.length > 0
      ? planCrop(targets, cuts, m.start, m.end, {
          srcW: info.width,
          srcH: info.height,
          cropW,
          deadZone: cs.deadZone,
          maxPanSpeed: cs.maxPanSpeed,
          confirmSec: 0.3,
        })
      : null;
  let assPath: string | null = null;
  if (w.captions) {
    const words = w.timeline.words
      .filter((x) => x.start >= m.start - 0.01 && x.end <= m.end + 0.01)
      .map((x) => ({ ...x, start: Math.max(0, x.start - m.start), end: Math.min(dur, x.end - m.start) }));
    const below = layout === "horizontal_in_vertical" ? letterbox(info.width, info.height) : null;
    assPath = join(w.clipsDir, `clip-${i}.ass`);
    await writeFile(assPath, buildAss(words, captionStyleFor(width, height, below ? { belowY: below.y + below.h } : {}), w.speakerNames));
  }
  const redacted = w.redaction ? mergeSpans(spansInCut(w.redaction.spans, { from: m.start, to: m.end })) : [];
  const video = join(w.clipsDir, `clip-${i}.mp4`);
  const poster = join(w.clipsDir, `clip-${i}.jpg`);
  await renderClip({
    source: w.source,
    output: video,
    start: m.start,
    durationSec: dur,
    layout,
    fillStyle: w.fillStyle,
    srcW: info.width,
    srcH: info.height,
    crop,
    cropW,
    cropH,
    assPath,
    loudness: info.hasAudio ? loudness : null,
    hasAudio: info.hasAudio,
    redaction: w.redaction && redacted.length > 0 ? { spans: redacted, mode: w.redaction.mode } : null,
    brandColor: w.brand.color,
    logo: w.brand.logo,
    fps: cs.fps,
    preset: cs.x264Preset,
    crf: cs.crf,
    poster: { output: poster, at: Math.min(1.5, dur / 2) },
    signal,
  });
  for (const [file, what] of [
    [video, "rendered"],
    [poster, "poster"],
  ] as const) {
    const size = await stat(file).then(
      (st) => st.size,
      () => 0,
    );
    if (size === 0) throw new StepFailure("processing_failed", `clip ${i + 1}: ${what} file empty`, true);
  }
  return {
    moment: m,
    video,
    poster,
    framing: crops ? framingShares(targets, m.start, m.end) : {},
    redactedSpans: info.hasAudio ? redacted.length : 0,
  };
}
