import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BRAND_LOGO_CALL, BrandLogoHandoverSchema, MAX_LOGO_BYTES } from "../../../contracts/branding";
import { LAYOUT_SIZE, type FillStyle, type Clip, type ClipLayout, type ClipTranscript } from "../../../contracts/clips";
import type { ClipGenerationResult } from "../../../contracts/clips";
import { listedOutput } from "../../../contracts/presigned";
import { renderClipsStep } from "../../../contracts/services/clip-generation";
import type { Settings } from "../../../contracts/settings";
import { createCategoryEngine } from "../../engines/category/factory";
import type { CategoryEngine, VisualSummary } from "../../engines/category/interface";
import type { EngineEnv } from "../../engines/config";
import { createVisionEngine } from "../../engines/vision/factory";
import type { FrameObservation, VisionEngine } from "../../engines/vision/interface";
import { StepFailure } from "../../../contracts/step-failure";
import type { ServiceStepHandler } from "../types";
import { SOURCE } from "../../object-store";
import { parseStepSettings, round3 } from "../../step-input";
import { mapLimit } from "../shared/map-limit";
import { handedOverTranscript } from "../shared/handover";
import { downloadObject, toolStep } from "../../objects";
import { joinWords } from "../../text/words";
import { openSource, type AcceptedSource } from "../../media/source";
import { openImage } from "../../media/images";
import { buildAss, captionStyleFor } from "./captions";
import { detectCategory } from "./category";
import { chooseLayout } from "./layout";
import { analysisSampling, analyzeAsProduced, type FrameStream } from "./analysis";
import { makeProxy, sampleMoment, videoInfo, type LoudnessMeasure } from "./media";
import { findMoments, type Moment } from "./moments";
import { framingShares, planCrop, targetsOf, type Target } from "./reframe";
import { cropSize, letterbox, logoBox, renderClip } from "./render";
import { buildSentences, wordsOf, type Timeline } from "./timeline";

/**
 * The clip generation runner step: from the source video and its transcript (handed over by the
 * Worker's `fetch_transcription` step as a scratch object) to rendered, uploaded clips.
 */

type ClipHandler = ServiceStepHandler<"clip_generation", typeof renderClipsStep>;

export interface ClipHandlerDeps {
  createVision?: (settings: Settings["clips"], env: EngineEnv) => VisionEngine;
  createCategory?: (settings: Settings["clips"]) => CategoryEngine;
  env?: EngineEnv;
}

/** Width of the analysis frames: detectors need faces, not detail. */
const ANALYSIS_WIDTH = 640;
/**
 * Width of the sparse frames of a long source. The detector sees every frame at its own input size
 * (256 px) whatever it is given; only the mesh (mouths) reads the face at the frame's resolution,
 * and the sparse pass reads mouths only for speaker changes. About a tenth cheaper per frame.
 */
const SPARSE_WIDTH = 480;
const ENERGY_STEP_SEC = 0.5;
/** Bodies are looked for on one sparse frame in this many. */
const BODY_EVERY = 4;
/** Seconds around a moment analysed densely and searched for exact cuts: the crop looks ahead up to a second. */
const DENSE_MARGIN_SEC = 1;
const SCENE_THRESHOLD = 10;
export const RENDERER = "ffmpeg libx264 (H.264 High) + AAC, libass captions, loudnorm −14 LUFS";

export function createClipGenerationHandler(deps: ClipHandlerDeps = {}): ClipHandler {
  const makeVision = deps.createVision ?? ((s, env) => createVisionEngine(s.visionEngine, env));
  const makeCategory = deps.createCategory ?? ((s) => createCategoryEngine(s.categoryEngine, deps.env ?? process.env));
  return async (ctx) => {
    const { report, signal, task } = ctx;
    const { input } = ctx;
    // A bucket job's; an s3_presigned job has its URLs in the task's presigned grant instead.
    const bucketJob = input.sourceType === "s3_direct" ? input : null;
    const settings = parseStepSettings(task.settings, ["clips", "runner"]);
    const cs = settings.clips;
    const objects = await ctx.openObjects({ [SOURCE]: bucketJob?.sourceKey ?? "" });
    await mkdir(ctx.workDir, { recursive: true });
    const engines: VisionEngine[] = [];
    try {
      return await run();
    } finally {
      for (const e of engines) await e.close();
    }

    async function run(): Promise<ClipGenerationResult> {
      const transcript = await handedOverTranscript(ctx);
      const sourcePath = join(ctx.workDir, "source");
      await report.stage(
        "download",
        () => objects.download(SOURCE, sourcePath, signal),
        (bytes) => ({ bytes, ...(bucketJob ? { sourceKey: bucketJob.sourceKey } : {}) }),
      );

      const framesDir = join(ctx.workDir, "frames");
      await mkdir(framesDir, { recursive: true });
      const visionOn = input.analysis.vision && cs.vision;
      // The sparse vision pass starts with the decode: each frame goes to the engine once written.
      const { source, info, proxy, sampling, vision, sparse } = await report.stage(
        "ingest",
        () =>
          toolStep(signal, async () => {
            const source = await openSource(sourcePath, { kind: "video", limits: settings.runner, signal });
            const info = videoInfo(source);
            if (!info) throw new StepFailure("unsupported_media", "the source has no video stream to make clips from", false);
            const sampling = analysisSampling(info.durationSec, cs.visionFps, cs.visionMaxFrames);
            let vision: VisionEngine | null = null;
            let sparse: FrameStream | null = null;
            if (visionOn) {
              vision = makeVision(cs, deps.env ?? process.env);
              engines.push(vision);
              sparse = analyzeAsProduced(vision, signal);
            }
            let queued = 0;
            const width = Math.min(sampling.stride > 1 ? SPARSE_WIDTH : ANALYSIS_WIDTH, info.width);
            // A short source's frames are the ones the crop follows: they must be where they say they are.
            const exactFrames = visionOn && sampling.stride === 1;
            const proxy = await makeProxy(source, framesDir, {
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
                  sparse?.push(f, {
                    bodies: queued % BODY_EVERY === 0,
                    eyes: false,
                    ...(sampling.stride === 1 ? { sequence: `${input.clipGenerationId}/source` } : {}),
                  });
                queued++;
              },
              signal,
            });
            return { source, info, proxy, sampling, vision, sparse, width, exactFrames };
          }),
        ({ source, info, proxy, sampling, width, exactFrames }) => ({
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
        }),
      );

      const scenes = await report.stage(
        "detect_scenes",
        async () => ({ cuts: proxy.cuts }),
        (r) => ({
          cuts: r.cuts.length,
          method: `ffmpeg scdet threshold ${SCENE_THRESHOLD} on a 256 px copy at 5 fps, in the ingest decode; every frame around the chosen moments`,
          firstCuts: r.cuts.slice(0, 20).map(round),
        }),
      );

      // A long source is analysed sparsely first (at most visionMaxFrames frames, enough for the
      // category, the layout and speaker changes), then densely only around the chosen moments,
      // where the crop needs every sample: the detector is most of a long job's time.
      const dense = sampling.stride > 1;
      let observations: FrameObservation[] = [];
      const engine = vision;
      const sparsePass = sparse;
      if (sparsePass && engine) {
        observations = await report.stage(
          "analyze_scenes",
          () => sparsePass.done(),
          (obs) => ({
            engine: engine.name,
            model: engine.model,
            frames: obs.length,
            ...(dense ? { sampledEvery: round(sampling.stride / cs.visionFps), denseAroundMoments: true } : {}),
            meanFaces: round(mean(obs.map((o) => o.faces.length))),
            maxFaces: Math.max(0, ...obs.map((o) => o.faces.length)),
            bodiesLookedForOn: Math.ceil(obs.length / BODY_EVERY),
            framesWithBodies: obs.filter((o) => o.bodies.length > 0).length,
            msPerFrame: Math.round(sparsePass.busyMs() / Math.max(1, obs.length)),
            ...(dense ? {} : { framesFollowed: obs.filter((o) => o.followed).length }),
            alongsideIngest: true,
          }),
        );
      } else {
        await report.skip("analyze_scenes", "vision analysis disabled in platform settings");
      }

      const words = wordsOf(transcript);
      const speaking = speechTest(words);
      let targets = observations.length > 0 ? targetsOf(observations, speaking) : [];
      let denseFrames = 0;
      let denseFollowed = 0;
      const timeline: Timeline = await report.stage(
        "build_timeline",
        async () => {
          const sentences = buildSentences(words, cs.sentencePauseSec, Math.min(20, cs.maxClipSec / 2));
          return {
            durationSec: info.durationSec,
            words,
            sentences,
            cuts: scenes.cuts,
            energy: proxy.energy,
            speakerChanges: speakerChanges(targets),
          };
        },
        (tl) => ({
          words: tl.words.length,
          sentences: tl.sentences.length,
          pausesOver1s: tl.sentences.filter((s) => s.pauseAfter >= 1 && Number.isFinite(s.pauseAfter)).length,
          sceneCuts: tl.cuts.length,
          speakerChanges: tl.speakerChanges.length,
          speechShare: round(speechShare(words, info.durationSec)),
        }),
      );

      const visual = visualSummary(observations, targets, timeline, info.durationSec);
      const {
        category,
        source: categorySource,
        engine: categoryEngine,
      } = await detectCategory(report, {
        override: input.options.categoryOverride,
        enabled: input.analysis.category && cs.category,
        makeEngine: () => makeCategory(cs),
        request: { text: joinWords(words.map((w) => w.word)), visual, categories: input.options.supportedCategories, signal },
      });
      const { layout, reason: layoutReason } = chooseLayout({
        requested: input.options.layout,
        allowAuto: input.options.allowAutoLayout,
        category: category?.category ?? null,
        visual,
        defaultLayout: cs.defaultLayout,
        supported: input.options.supportedLayouts ?? [],
      });
      const fillStyle =
        layout === "horizontal_in_vertical" ? (input.options.fillStyle ?? defaultFill(input.options.supportedFillStyles)) : null;

      const found = await report.stage(
        "detect_candidates",
        async () => findMoments(timeline, { minSec: cs.minClipSec, maxSec: cs.maxClipSec, maxClips: input.options.maxClips }),
        (r) => ({
          candidates: r.candidates,
          chosen: r.moments.length,
          maxClips: input.options.maxClips,
          ...(input.options.maxClipsRequested !== undefined ? { maxClipsRequested: input.options.maxClipsRequested } : {}),
          clipLengthSec: { min: cs.minClipSec, max: cs.maxClipSec },
          scores: r.moments.map((m) => m.score),
        }),
      );
      if (found.moments.length === 0) throw new StepFailure("no_moments", "the transcript has no words to make a clip from", false);

      const clipsDir = join(ctx.workDir, "clips");
      await mkdir(clipsDir, { recursive: true });
      const brand = { color: input.branding?.color ?? cs.brandColor, logo: null as BrandLogo | null, logoNote: null as string | null };
      const rendered = await report.stage(
        "render_clips",
        () =>
          toolStep(signal, async () => {
            if (fillStyle === "branding") {
              const prepared = await prepareLogo(ctx, bucketJob?.bucket ?? "", join(ctx.workDir, "logo"), logoBox(info.width, info.height));
              if (prepared && "note" in prepared) brand.logoNote = prepared.note;
              else if (prepared) brand.logo = prepared;
            }
            // Each moment is prepared (one decode of it for dense frames, exact cuts and the loudness
            // measure, the frames analysed as they are written) while earlier ones render.
            const prepare = async (i: number, m: Moment, work: AbortSignal): Promise<Prepared> => {
              const frames = engine && dense ? analyzeAsProduced(engine, work) : null;
              // A frame of the dense grid with a sparse observation within half a period already has
              // its sample: analysing it again would cost a detector run for nothing.
              const half = 0.5 / cs.visionFps;
              const sparseNear = (t: number) => observations.some((o) => Math.abs(o.t - t) < half);
              const sample = await sampleMoment(source, join(framesDir, `moment-${i + 1}`), {
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
                  if (!sparseNear(f.t))
                    frames?.push(f, { bodies: false, eyes: false, sequence: `${input.clipGenerationId}/moment-${i + 1}` });
                },
                alone: i === 0,
                signal: work,
              });
              if (frames) {
                const more = await frames.done();
                observations = [...observations, ...more].sort((a, b) => a.t - b.t);
                targets = targetsOf(observations, speaking);
                denseFrames += more.length;
                denseFollowed += more.filter((o) => o.followed).length;
              }
              const cuts = [...timeline.cuts.filter((c) => c < sample.from || c > sample.to), ...sample.cuts].sort((a, b) => a - b);
              return { targets, cuts, loudness: sample.loudness };
            };
            // Moments are prepared one at a time, in order, each as soon as the one before it is;
            // up to rendersAtOnce clips render at once, each as soon as its moment is prepared.
            const lookahead = new AbortController();
            const work = AbortSignal.any([signal, lookahead.signal]);
            const prepared: Array<Promise<Prepared>> = [];
            for (const [i, m] of found.moments.entries()) {
              const p = (prepared[i - 1] ?? Promise.resolve()).then(() => prepare(i, m, work));
              // Awaited in its turn; a render failing first must not leave it unhandled.
              p.catch(() => undefined);
              prepared.push(p);
            }
            try {
              return await mapLimit(found.moments, cs.rendersAtOnce, work, async (m, renderSignal, i) =>
                renderOne({
                  i,
                  m,
                  layout,
                  fillStyle,
                  info,
                  source,
                  clipsDir,
                  timeline,
                  prepared: await prepared[i]!,
                  cs,
                  brand,
                  captions: input.options.captions,
                  signal: renderSignal,
                }),
              );
            } finally {
              // Stops the moments still being prepared when a render failed.
              lookahead.abort();
            }
          }),
        (r) => ({
          clips: r.length,
          totalSec: round(r.reduce((n, c) => n + (c.moment.end - c.moment.start), 0)),
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
          captions: input.options.captions,
          rendersAtOnce: Math.min(cs.rendersAtOnce, r.length),
          ...(denseFrames > 0 ? { denseAnalysisFrames: denseFrames, denseFramesFollowed: denseFollowed } : {}),
          renderer: RENDERER,
        }),
      );

      const base = `${bucketJob?.resolvedOutputPrefix ?? ""}${input.clipGenerationId}/`;
      // A bucket job names its files by key; a presigned one by its lists' entries (video.0, poster.0, …).
      const presigned = task.presigned != null;
      const clips = await report.stage(
        "upload_clips",
        async () => {
          const out: Clip[] = [];
          for (const [i, r] of rendered.entries()) {
            const n = String(i + 1).padStart(2, "0");
            const videoKey = await objects.upload(
              presigned ? listedOutput("video", i) : `${base}clip-${n}.mp4`,
              { path: r.video },
              "video/mp4",
            );
            const posterKey = await objects.upload(
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
        },
        (r) => ({ objects: r.length * 2, keys: r.map((c) => c.videoKey), bytes: 0 }),
      );

      const result: ClipGenerationResult = {
        layout,
        layoutReason,
        fillStyle,
        category: category?.category ?? null,
        categoryConfidence: category ? round(category.confidence) : null,
        categorySource,
        captions: input.options.captions,
        sourceDurationSec: round(info.durationSec),
        candidateCount: found.candidates,
        engines: {
          vision: vision ? { engine: vision.name, model: vision.model } : null,
          category: categoryEngine ? { engine: categoryEngine.name, model: categoryEngine.model } : null,
          renderer: RENDERER,
        },
        clips,
      };
      return result;
    }
  };
}

/** What a moment's render needs beyond the timeline: the crop's targets, the exact cuts, the loudness measure. */
interface Prepared {
  targets: Target[];
  cuts: number[];
  loudness: LoudnessMeasure | null;
}

interface RenderOneArgs {
  i: number;
  m: Moment;
  layout: ClipLayout;
  fillStyle: ClipGenerationResult["fillStyle"];
  info: { width: number; height: number; hasAudio: boolean };
  source: AcceptedSource;
  clipsDir: string;
  timeline: Timeline;
  prepared: Prepared;
  cs: Settings["clips"];
  brand: { color: string; logo: BrandLogo | null };
  captions: boolean;
  signal: AbortSignal;
}

async function renderOne(a: RenderOneArgs): Promise<{ moment: Moment; video: string; poster: string; framing: Record<string, number> }> {
  const { m, layout, info, cs, signal } = a;
  const { targets, cuts, loudness } = a.prepared;
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
  if (a.captions) {
    const words = a.timeline.words
      .filter((w) => w.start >= m.start - 0.01 && w.end <= m.end + 0.01)
      .map((w) => ({ word: w.word, start: Math.max(0, w.start - m.start), end: Math.min(dur, w.end - m.start) }));
    const below = layout === "horizontal_in_vertical" ? letterbox(info.width, info.height) : null;
    assPath = join(a.clipsDir, `clip-${a.i}.ass`);
    await writeFile(assPath, buildAss(words, captionStyleFor(width, height, below ? { belowY: below.y + below.h } : {})));
  }
  const video = join(a.clipsDir, `clip-${a.i}.mp4`);
  const poster = join(a.clipsDir, `clip-${a.i}.jpg`);
  await renderClip({
    source: a.source,
    output: video,
    start: m.start,
    durationSec: dur,
    layout,
    fillStyle: a.fillStyle,
    srcW: info.width,
    srcH: info.height,
    crop,
    cropW,
    cropH,
    assPath,
    loudness: info.hasAudio ? loudness : null,
    hasAudio: info.hasAudio,
    brandColor: a.brand.color,
    logo: a.brand.logo,
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
    if (size === 0) throw new StepFailure("processing_failed", `clip ${a.i + 1}: ${what} file empty`, true);
  }
  return { moment: m, video, poster, framing: crops ? framingShares(targets, m.start, m.end) : {} };
}

type BrandLogo = { path: string; width: number; height: number };

/**
 * The project's logo as a PNG that fits the band above the picture. A logo that cannot be decoded
 * is left out with a note (the colour still brands the clip) rather than failing the render.
 */
/**
 * The brand logo, scaled to fit its band: a bucket job's was handed over as a scratch object
 * (`logoKey`); an `s3_presigned` job, which has no bucket, reads it with the runner call
 * `clip_generation.logo`. Null when there is none to draw; a note when one was set but left out.
 */
async function prepareLogo(
  ctx: Parameters<ClipHandler>[0],
  bucket: string,
  dir: string,
  box: { maxWidth: number; maxHeight: number },
): Promise<BrandLogo | { note: string } | null> {
  await mkdir(dir, { recursive: true });
  const original = join(dir, "logo-original");
  const logoKey = ctx.outputs.fetch_transcription?.logoKey;
  if (logoKey !== undefined)
    await downloadObject(await ctx.openStorage(), bucket, logoKey, original, ctx.signal, {
      maxBytes: MAX_LOGO_BYTES,
      minFreeDiskBytes: 0,
      setting: "the brand logo's limit",
    });
  else if (ctx.task.presigned) {
    const handed = await ctx.platform.call(BRAND_LOGO_CALL, {}, BrandLogoHandoverSchema);
    if (!handed.logo) return handed.note ? { note: handed.note } : null;
    await writeFile(original, Buffer.from(handed.logo.data, "base64"));
  } else return null;
  const path = join(dir, "logo.png");
  try {
    const info = await openImage(original).resize({ width: box.maxWidth, height: box.maxHeight, fit: "inside" }).png().toFile(path);
    return { path, width: info.width, height: info.height };
  } catch (err) {
    return { note: `left out: the logo is not an image (${err instanceof Error ? err.message : String(err)})` };
  }
}

/** Blur unless the plan's fill styles leave it out. */
function defaultFill(supported: readonly FillStyle[] | undefined): FillStyle {
  return !supported || supported.length === 0 || supported.includes("blur") ? "blur" : supported[0]!;
}

/** Whether someone is speaking at t (a word within 0.3 s). */
function speechTest(words: ClipTranscript["segments"][number]["words"] & object): (t: number) => boolean {
  return (t) => words.some((w) => t >= w.start - 0.3 && t <= w.end + 0.3);
}

function speechShare(words: ReadonlyArray<{ start: number; end: number }>, duration: number): number {
  if (duration <= 0) return 0;
  return Math.min(1, words.reduce((n, w) => n + Math.max(0, w.end - w.start), 0) / duration);
}

/** Times where the framing moves from one speaker to another (targets whose centre jumps by a fifth of the width). */
function speakerChanges(targets: readonly Target[]): number[] {
  const out: number[] = [];
  let last: Target | undefined;
  for (const t of targets) {
    if (t.source !== "speaker") continue;
    if (last && Math.abs(t.cx - last.cx) > 0.2) out.push(t.t);
    last = t;
  }
  return out;
}

function visualSummary(obs: readonly FrameObservation[], targets: readonly Target[], tl: Timeline, duration: number): VisualSummary {
  const speakers = new Set(targets.filter((t) => t.source === "speaker").map((t) => Math.round(t.cx * 4)));
  return {
    meanFaces: obs.length > 0 ? mean(obs.map((o) => o.faces.filter((f) => f.score >= 0.5).length)) : null,
    maxFaces: obs.length > 0 ? Math.max(...obs.map((o) => o.faces.filter((f) => f.score >= 0.5).length)) : null,
    cutsPerMinute: duration > 0 ? (tl.cuts.length / duration) * 60 : 0,
    speechShare: speechShare(tl.words, duration),
    speakers: obs.length > 0 ? speakers.size : null,
  };
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const round = round3;

export const clipGenerationHandler: ClipHandler = createClipGenerationHandler();
