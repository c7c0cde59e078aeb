import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { LAYOUT_SIZE, type Clip, type ClipGenerationResult, type ClipLayout, type FillStyle } from "../../../contracts/clips";
import { listedOutput } from "../../../contracts/presigned";
import type { ClipGenerationStored, renderClipsStep } from "../../../contracts/services/clip-generation";
import type { OutputsOf } from "../../../contracts/services/index";
import type { StageOf } from "../../../contracts/services/types";
import type { Settings } from "../../../contracts/settings";
import { StepFailure } from "../../../contracts/step-failure";
import { createCategoryEngine } from "../../engines/category/factory";
import type { CategoryEngine, VisualSummary } from "../../engines/category/interface";
import type { EngineEnv } from "../../engines/config";
import { createVisionEngine } from "../../engines/vision/factory";
import type { FrameObservation, VisionEngine } from "../../engines/vision/interface";
import type { HandlerContext } from "../../handler";
import { openSource, type AcceptedSource } from "../../media/source";
import { SOURCE, type ObjectStore } from "../../object-store";
import { toolStep } from "../../objects";
import { parseStepSettings, round3 as round } from "../../step-input";
import { joinWords } from "../../../contracts/text-words";
import type { RedactedSpan } from "../../../contracts/redaction";
import { analysisSampling, analyzeAsProduced, type AnalysisSampling, type FrameStream } from "./analysis";
import { prepareLogo } from "./brand-logo";
import { detectCategory, type CategoryOutcome } from "./category";
import { chooseLayout } from "./layout";
import { makeProxy, videoInfo, type Proxy, type VideoInfo } from "./media";
import { findMoments } from "./moments";
import { targetsOf } from "./reframe";
import { logoBox } from "./render";
import { ANALYSIS_WIDTH, renderMoments, SCENE_THRESHOLD, type Analysis, type Brand, type RenderedClip } from "./render-moments";
import { buildSentences, type Timeline, type TimedWord } from "./timeline";
import { mean, speakerChanges, speechShare } from "./visual-summary";

/**
 * The clip step's stages, one function each over the run (`ClipRun`): what a stage needs comes from
 * the run or from what an earlier stage returned, and each returns what the next ones need.
 */

export type ClipStage = StageOf<typeof renderClipsStep>;
export type ClipContext = HandlerContext<ClipStage, ClipGenerationStored, OutputsOf<"clip_generation">>;

export interface ClipHandlerDeps {
  createVision?: (settings: Settings["clips"], env: EngineEnv) => VisionEngine;
  createCategory?: (settings: Settings["clips"]) => CategoryEngine;
  env?: EngineEnv;
}

/**
 * Width of the sparse frames of a long source. The detector sees every frame at its own input size
 * (256 px) whatever it is given; only the mesh (mouths) reads the face at the frame's resolution,
 * and the sparse pass reads mouths only for speaker changes. About a tenth cheaper per frame.
 */
const SPARSE_WIDTH = 480;
const ENERGY_STEP_SEC = 0.5;
/** Bodies are looked for on one sparse frame in this many. */
const BODY_EVERY = 4;
export const RENDERER = "ffmpeg libx264 (H.264 High) + AAC, libass captions, loudnorm −14 LUFS";

export interface ClipRun {
  ctx: ClipContext;
  input: ClipGenerationStored;
  /** A bucket job's source and prefix; null for an s3_presigned job, whose URLs are the task's presigned grant. */
  bucketJob: Extract<ClipGenerationStored, { sourceType: "s3_direct" }> | null;
  cs: Settings["clips"];
  runner: Settings["runner"];
  objects: ObjectStore;
  sourcePath: string;
  framesDir: string;
  clipsDir: string;
  makeVision: () => VisionEngine;
  makeCategory: () => CategoryEngine;
  /** Every vision engine the run opened, for the handler to close whatever happens. */
  engines: VisionEngine[];
}

export async function openClipRun(ctx: ClipContext, deps: ClipHandlerDeps): Promise<ClipRun> {
  const { input } = ctx;
  const settings = parseStepSettings(ctx.task.settings, ["clips", "runner"]);
  const cs = settings.clips;
  const bucketJob = input.sourceType === "s3_direct" ? input : null;
  const objects = await ctx.openObjects({ [SOURCE]: bucketJob?.sourceKey ?? "" });
  const run: ClipRun = {
    ctx,
    input,
    bucketJob,
    cs,
    runner: settings.runner,
    objects,
    sourcePath: join(ctx.workDir, "source"),
    framesDir: join(ctx.workDir, "frames"),
    clipsDir: join(ctx.workDir, "clips"),
    makeVision: () => (deps.createVision ?? ((s, env) => createVisionEngine(s.visionEngine, env)))(cs, deps.env ?? process.env),
    makeCategory: () => (deps.createCategory ?? ((s) => createCategoryEngine(s.categoryEngine, deps.env ?? process.env)))(cs),
    engines: [],
  };
  // The task's work directory with them.
  for (const dir of [run.framesDir, run.clipsDir]) await mkdir(dir, { recursive: true });
  return run;
}

export const downloadSource = (run: ClipRun) => run.objects.download(SOURCE, run.sourcePath, run.ctx.signal);
export const downloadDetails = (run: ClipRun) => (bytes: number) => ({
  bytes,
  ...(run.bucketJob ? { sourceKey: run.bucketJob.sourceKey } : {}),
});

export interface Ingested {
  source: AcceptedSource;
  info: VideoInfo;
  proxy: Proxy;
  sampling: AnalysisSampling;
  width: number;
  exactFrames: boolean;
  /** The sparse vision pass, fed by the decode; null when vision is off. */
  sparse: { engine: VisionEngine; frames: FrameStream } | null;
}

/** Decodes the source once: the analysis frames (each to the sparse vision pass as it is written), the energy and the scene cuts. */
export function ingest(run: ClipRun): Promise<Ingested> {
  const { cs, input, ctx } = run;
  const { signal } = ctx;
  const visionOn = input.analysis.vision && cs.vision;
  return toolStep(signal, async () => {
    const source = await openSource(run.sourcePath, { kind: "video", limits: run.runner, signal });
    const info = videoInfo(source);
    if (!info) throw new StepFailure("unsupported_media", "the source has no video stream to make clips from", false);
    const sampling = analysisSampling(info.durationSec, cs.visionFps, cs.visionMaxFrames);
    let sparse: Ingested["sparse"] = null;
    if (visionOn) {
      const engine = run.makeVision();
      run.engines.push(engine);
      sparse = { engine, frames: analyzeAsProduced(engine, signal) };
    }
    let queued = 0;
    const width = Math.min(sampling.stride > 1 ? SPARSE_WIDTH : ANALYSIS_WIDTH, info.width);
    // A short source's frames are the ones the crop follows: they must be where they say they are.
    const exactFrames = visionOn && sampling.stride === 1;
    const proxy = await makeProxy(source, run.framesDir, {
      frameRate: visionOn ? sampling.rate : null,
      exactFrames,
      width,
      energyStep: ENERGY_STEP_SEC,
      sceneThreshold: SCENE_THRESHOLD,
      hasAudio: info.hasAudio,
      // The estimate behind the stride can be one frame short: the limit holds regardless.
      // Eye state is read by nothing in a clip. Bodies describe the source in the record but
      // steer nothing (the crop follows faces, then the salient region), and cost as much as the
      // face models: they are looked for on every BODY_EVERY-th frame.
      // Frames of a short source are the dense grid already: faces may be followed from one to the next.
      onFrame: (f) => {
        if (queued < cs.visionMaxFrames)
          sparse?.frames.push(f, {
            bodies: queued % BODY_EVERY === 0,
            eyes: false,
            ...(sampling.stride === 1 ? { sequence: `${input.clipGenerationId}/source` } : {}),
          });
        queued++;
      },
      signal,
    });
    return { source, info, proxy, sampling, sparse, width, exactFrames };
  });
}

export const ingestDetails = ({ source, info, proxy, sampling, width, exactFrames }: Ingested) => ({
  format: source.format,
  durationSec: round(info.durationSec),
  width: info.width,
  height: info.height,
  fps: round(info.fps),
  hasAudio: info.hasAudio,
  analysisFrames: proxy.frames.length,
  analysisFps: round(sampling.rate.num / sampling.rate.den),
  analysisWidth: width,
  decode: `${exactFrames ? "reference frames" : "I- and P-frames"} only, no deblocking (analysis only)`,
});

/** Found by the ingest decode already. */
export const detectScenes = async (ing: Ingested) => ({ cuts: ing.proxy.cuts });
export const scenesDetails = (r: { cuts: number[] }) => ({
  cuts: r.cuts.length,
  method: `ffmpeg scdet threshold ${SCENE_THRESHOLD} on a 256 px copy at 5 fps, in the ingest decode; every frame around the chosen moments`,
  firstCuts: r.cuts.slice(0, 20).map(round),
});

/**
 * A long source is analysed sparsely first (at most visionMaxFrames frames, enough for the category,
 * the layout and speaker changes), then densely only around the chosen moments (render_clips), where
 * the crop needs every sample: the detector is most of a long job's time.
 */
export const analyzeScenes = (sparse: NonNullable<Ingested["sparse"]>) => sparse.frames.done();
export const VISION_OFF = "vision analysis disabled in platform settings";
export const analysisDetails = (run: ClipRun, ing: Ingested, sparse: NonNullable<Ingested["sparse"]>) => (obs: FrameObservation[]) => {
  const dense = ing.sampling.stride > 1;
  return {
    engine: sparse.engine.engine,
    model: sparse.engine.model,
    frames: obs.length,
    ...(dense ? { sampledEvery: round(ing.sampling.stride / run.cs.visionFps), denseAroundMoments: true } : {}),
    meanFaces: round(mean(obs.map((o) => o.faces.length))),
    maxFaces: Math.max(0, ...obs.map((o) => o.faces.length)),
    bodiesLookedForOn: Math.ceil(obs.length / BODY_EVERY),
    framesWithBodies: obs.filter((o) => o.bodies.length > 0).length,
    msPerFrame: Math.round(sparse.frames.busyMs() / Math.max(1, obs.length)),
    ...(dense ? {} : { framesFollowed: obs.filter((o) => o.followed).length }),
    alongsideIngest: true,
  };
};

/** The sparse pass's frames, before any moment's dense ones join them. */
export const startAnalysis = (observations: FrameObservation[], speaking: (t: number) => boolean): Analysis => ({
  observations,
  targets: observations.length > 0 ? targetsOf(observations, speaking) : [],
  denseFrames: 0,
  denseFollowed: 0,
});

export async function buildTimeline(
  run: ClipRun,
  ing: Ingested,
  cuts: number[],
  words: TimedWord[],
  analysis: Analysis,
): Promise<Timeline> {
  const sentences = buildSentences(words, run.cs.sentencePauseSec, Math.min(20, run.cs.maxClipSec / 2));
  return {
    durationSec: ing.info.durationSec,
    words,
    sentences,
    cuts,
    energy: ing.proxy.energy,
    speakerChanges: speakerChanges(analysis.targets),
  };
}
export const timelineDetails = (tl: Timeline) => ({
  words: tl.words.length,
  sentences: tl.sentences.length,
  pausesOver1s: tl.sentences.filter((s) => s.pauseAfter >= 1 && Number.isFinite(s.pauseAfter)).length,
  sceneCuts: tl.cuts.length,
  speakerChanges: tl.speakerChanges.length,
  speechShare: round(speechShare(tl.words, tl.durationSec)),
});

/** Reports its own stage (category.ts): skipped, rather than failed, when no category can be had. */
export function detectClipCategory(run: ClipRun, words: readonly TimedWord[], visual: VisualSummary): Promise<CategoryOutcome> {
  const { input, cs, ctx } = run;
  return detectCategory(ctx.report, {
    override: input.options.categoryOverride,
    enabled: input.analysis.category && cs.category,
    makeEngine: run.makeCategory,
    request: { text: joinWords(words.map((w) => w.word)), visual, categories: input.options.supportedCategories, signal: ctx.signal },
  });
}

export interface ClipFormat {
  layout: ClipLayout;
  layoutReason: ClipGenerationResult["layoutReason"];
  /** Only a picture inside a vertical frame has a fill around it. */
  fillStyle: ClipGenerationResult["fillStyle"];
}

export function chooseFormat(run: ClipRun, category: CategoryOutcome, visual: VisualSummary): ClipFormat {
  const { options } = run.input;
  const { layout, reason } = chooseLayout({
    requested: options.layout,
    allowAuto: options.allowAutoLayout,
    category: category.category?.category ?? null,
    visual,
    defaultLayout: run.cs.defaultLayout,
    supported: options.supportedLayouts ?? [],
  });
  const fillStyle = layout === "horizontal_in_vertical" ? (options.fillStyle ?? defaultFill(options.supportedFillStyles)) : null;
  return { layout, layoutReason: reason, fillStyle };
}

/** Blur unless the plan's fill styles leave it out. */
function defaultFill(supported: readonly FillStyle[] | undefined): FillStyle {
  return !supported || supported.length === 0 || supported.includes("blur") ? "blur" : supported[0]!;
}

type Found = ReturnType<typeof findMoments>;

export const detectCandidates = async (run: ClipRun, timeline: Timeline): Promise<Found> =>
  findMoments(timeline, { minSec: run.cs.minClipSec, maxSec: run.cs.maxClipSec, maxClips: run.input.options.maxClips });
export const candidatesDetails = (run: ClipRun) => (r: Found) => ({
  candidates: r.candidates,
  chosen: r.moments.length,
  maxClips: run.input.options.maxClips,
  ...(run.input.options.maxClipsRequested !== undefined ? { maxClipsRequested: run.input.options.maxClipsRequested } : {}),
  clipLengthSec: { min: run.cs.minClipSec, max: run.cs.maxClipSec },
  scores: r.moments.map((m) => m.score),
});

export function requireMoments(found: Found): void {
  if (found.moments.length === 0) throw new StepFailure("no_moments", "the transcript has no words to make a clip from", false);
}

export interface Rendered {
  clips: RenderedClip[];
  /** The analysis grown by every moment's dense frames. */
  analysis: Analysis;
  brand: Brand;
}

/** The brand (colour, and the logo with a `branding` fill), then the moments rendered while later ones are prepared (render-moments.ts). */
export function renderClips(
  run: ClipRun,
  a: {
    ing: Ingested;
    timeline: Timeline;
    analysis: Analysis;
    speaking: (t: number) => boolean;
    format: ClipFormat;
    found: Found;
    /** Caption names by speaker label (timeline.ts `speakerNamesOf`). */
    speakerNames: Readonly<Record<string, string>>;
    /** The transcript's redacted spans (seconds of the source): their audio is silenced or toned in every clip. */
    redactedSpans: readonly RedactedSpan[];
  },
): Promise<Rendered> {
  const { ctx, input, cs } = run;
  const { info, source, sampling, sparse } = a.ing;
  return toolStep(ctx.signal, async () => {
    const brand: Brand = { color: input.branding?.color ?? cs.brandColor, logo: null, logoNote: null };
    if (a.format.fillStyle === "branding") {
      const logo = await prepareLogo(ctx, run.bucketJob?.bucket ?? "", join(ctx.workDir, "logo"), logoBox(info.width, info.height));
      if (logo && "note" in logo) brand.logoNote = logo.note;
      else if (logo) brand.logo = logo;
    }
    const work = {
      source,
      info,
      framesDir: run.framesDir,
      clipsDir: run.clipsDir,
      timeline: a.timeline,
      cs,
      denseEngine: sampling.stride > 1 ? (sparse?.engine ?? null) : null,
      speaking: a.speaking,
      clipGenerationId: input.clipGenerationId,
      layout: a.format.layout,
      fillStyle: a.format.fillStyle,
      brand,
      captions: input.options.captions,
      speakerNames: a.speakerNames,
      redaction: a.redactedSpans.length > 0 ? { spans: a.redactedSpans, mode: cs.redactedAudio } : null,
    };
    const { clips, analysis } = await renderMoments(work, a.found.moments, a.analysis, ctx.signal);
    return { clips, analysis, brand };
  });
}

export const renderDetails =
  (run: ClipRun, { layout, fillStyle }: ClipFormat) =>
  ({ clips, analysis, brand }: Rendered) => ({
    clips: clips.length,
    totalSec: round(clips.reduce((n, c) => n + (c.moment.end - c.moment.start), 0)),
    layout,
    fillStyle,
    ...(fillStyle === "branding"
      ? {
          branding: {
            color: brand.color,
            logo: brand.logo ? `${brand.logo.width}×${brand.logo.height}` : (brand.logoNote ?? "none set"),
          },
        }
      : {}),
    captions: run.input.options.captions,
    ...(clips.some((c) => c.redactedSpans > 0)
      ? { redactedAudio: { mode: run.cs.redactedAudio, spans: clips.reduce((n, c) => n + c.redactedSpans, 0) } }
      : {}),
    rendersAtOnce: Math.min(run.cs.rendersAtOnce, clips.length),
    ...(analysis.denseFrames > 0 ? { denseAnalysisFrames: analysis.denseFrames, denseFramesFollowed: analysis.denseFollowed } : {}),
    renderer: RENDERER,
  });

/** A bucket job names its files by key; a presigned one by its lists' entries (video.0, poster.0, …). */
export async function uploadClips(run: ClipRun, rendered: readonly RenderedClip[], layout: ClipLayout): Promise<Clip[]> {
  const base = `${run.bucketJob?.resolvedOutputPrefix ?? ""}${run.input.clipGenerationId}/`;
  const presigned = run.ctx.task.presigned != null;
  const out: Clip[] = [];
  for (const [i, r] of rendered.entries()) {
    const n = String(i + 1).padStart(2, "0");
    const videoKey = await run.objects.upload(
      presigned ? listedOutput("video", i) : `${base}clip-${n}.mp4`,
      { path: r.video },
      "video/mp4",
    );
    const posterKey = await run.objects.upload(
      presigned ? listedOutput("poster", i) : `${base}clip-${n}.jpg`,
      { path: r.poster },
      "image/jpeg",
    );
    const { width, height } = LAYOUT_SIZE[layout];
    out.push({
      index: i,
      start: r.moment.start,
      end: r.moment.end,
      durationSec: round(r.moment.end - r.moment.start),
      title: r.moment.title,
      score: r.moment.score,
      scoreParts: r.moment.scoreParts,
      text: r.moment.text,
      videoKey,
      posterKey,
      width,
      height,
      ...(layout === "vertical_9_16" || layout === "square_1_1" ? { framing: r.framing } : {}),
    });
  }
  return out;
}
export const uploadDetails = (r: Clip[]) => ({ objects: r.length * 2, keys: r.map((c) => c.videoKey), bytes: 0 });

export function clipResult(
  run: ClipRun,
  r: {
    ing: Ingested;
    category: CategoryOutcome;
    format: ClipFormat;
    found: Found;
    clips: Clip[];
    /** Redacted spans silenced in the clips' audio; null when the transcript was not redacted. */
    redactedSpans: number | null;
  },
): ClipGenerationResult {
  const { category, source: categorySource, engine: categoryEngine } = r.category;
  const vision = r.ing.sparse?.engine;
  return {
    layout: r.format.layout,
    layoutReason: r.format.layoutReason,
    fillStyle: r.format.fillStyle,
    category: category?.category ?? null,
    categoryConfidence: category ? round(category.confidence) : null,
    categorySource,
    captions: run.input.options.captions,
    sourceDurationSec: round(r.ing.info.durationSec),
    candidateCount: r.found.candidates,
    engines: {
      vision: vision ? { engine: vision.engine, model: vision.model } : null,
      category: categoryEngine ? { engine: categoryEngine.engine, model: categoryEngine.model } : null,
      renderer: RENDERER,
    },
    clips: r.clips,
    ...(r.redactedSpans !== null ? { redactedAudio: { mode: run.cs.redactedAudio, spans: r.redactedSpans } } : {}),
  };
}
