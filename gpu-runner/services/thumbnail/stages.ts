import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { ClipTranscript } from "../../../contracts/clips";
import { listedOutput } from "../../../contracts/presigned";
import type { ThumbnailStored } from "../../../contracts/services/thumbnail";
import type { Settings } from "../../../contracts/settings";
import { StepFailure } from "../../../contracts/step-failure";
import type { Thumbnail, ThumbnailResult } from "../../../contracts/thumbnails";
import type { Cover, ImageEngine } from "../../engines/image/interface";
import { faceAwareCrop } from "../../engines/image/local-compositor";
import type { FrameObservation, VisionEngine } from "../../engines/vision/interface";
import { openImage } from "../../media/images";
import { openSource, sourceInput, type AcceptedSource } from "../../media/source";
import { FFMPEG, runToolOk } from "../../media/spawn";
import { SOURCE, type ObjectStore } from "../../object-store";
import { toolStep } from "../../objects";
import { round3 } from "../../step-input";
import { detectSceneCuts, videoInfo, type VideoInfo } from "../clip-generation/media";
import { candidateTimes, diverseOrder, extractStills, measureImage, pickDiverse, scoreCandidates, type Candidate } from "./frames";
import { coverPrompt, type Topic } from "./text";

/**
 * The thumbnail step's stages (contracts/services/thumbnail.ts), one function each over a
 * `ThumbnailRun`; each returns what the stages after it read, and a `…Details` beside it says what
 * its completed event reports. The handler runs them in order inside the `thumbnail_pipeline` envelope.
 */

/** What every stage of one task reads: the job's stored input, the platform settings, where it works. */
export interface ThumbnailRun {
  readonly input: ThumbnailStored;
  readonly settings: Pick<Settings, "thumbnails" | "runner">;
  readonly jobId: string;
  readonly workDir: string;
  readonly signal: AbortSignal;
  /** The job's source (`SOURCE`) and outputs, by its bucket or its presigned URLs. */
  readonly objects: ObjectStore;
}

/** Width of the copies the vision engine reads: faces, not detail. */
const ANALYSIS_WIDTH = 640;
const SCENE_THRESHOLD = 10;
const JPEG_QUALITY: Record<Settings["thumbnails"]["imageQuality"], number> = { low: 70, medium: 82, high: 92, auto: 88 };
export const FRAME_SELECTOR = { engine: "frame-selector", model: "sharpness+exposure+faces, sharp-phash diversity" };
const round = round3;

/** The source's key for a bucket job; a presigned job's source is its grant's URL. */
export const sourceKeyOf = (input: ThumbnailStored): string | undefined => (input.sourceType === "s3_direct" ? input.sourceKey : undefined);

export const sourcePathOf = (run: ThumbnailRun): string => join(run.workDir, "source");

// download

export function downloadSource(run: ThumbnailRun): Promise<number> {
  return run.objects.download(SOURCE, sourcePathOf(run), run.signal);
}

export const downloadDetails = (run: ThumbnailRun) => (bytes: number) => {
  const sourceKey = sourceKeyOf(run.input);
  return { bytes, ...(sourceKey ? { sourceKey } : {}) };
};

// thumbnail_ingest

export interface Ingested {
  source: AcceptedSource;
  info: VideoInfo;
  cuts: number[];
  /** The candidate frames' times, scene cuts first. */
  times: number[];
}

export function ingestSource(run: ThumbnailRun): Promise<Ingested> {
  const { signal, settings } = run;
  return toolStep(signal, async () => {
    const source = await openSource(sourcePathOf(run), { kind: "video", limits: settings.runner, signal });
    const info = videoInfo(source);
    if (!info) throw new StepFailure("unsupported_media", "the source has no video stream to take thumbnails from", false);
    const { cuts } = await detectSceneCuts(source, SCENE_THRESHOLD, signal);
    return { source, info, cuts, times: candidateTimes(info.durationSec, cuts, settings.thumbnails.maxCandidates) };
  });
}

export const ingestDetails = (run: ThumbnailRun) => (r: Ingested) => ({
  format: r.source.format,
  durationSec: round(r.info.durationSec),
  width: r.info.width,
  height: r.info.height,
  sceneCuts: r.cuts.length,
  candidates: r.times.length,
  maxCandidates: run.settings.thumbnails.maxCandidates,
});

/** After ingest reports what it found: a source with no candidate time has nothing to make thumbnails from. */
export function requireCandidateTimes(ingested: Ingested): void {
  if (ingested.times.length === 0) throw new StepFailure("unsupported_media", "the source has no frames to take thumbnails from", false);
}

// thumbnail_encode

export type Still = { t: number; path: string };

const stillWidthOf = (run: ThumbnailRun) => Math.min(1920, Math.max(run.input.size.width, run.input.size.height));

export async function encodeStills(run: ThumbnailRun, ingested: Ingested): Promise<Still[]> {
  const dir = join(run.workDir, "stills");
  await mkdir(dir, { recursive: true });
  return toolStep(run.signal, () => extractStills(ingested.source, ingested.times, dir, stillWidthOf(run), run.signal));
}

export const encodeDetails = (run: ThumbnailRun) => (r: Still[]) => ({
  stills: r.length,
  maxWidth: stillWidthOf(run),
  times: r.map((s) => s.t),
});

// thumbnail_analyze

export interface Analysed {
  candidates: Candidate[];
  /** The vision engine that looked for faces; null when the platform settings turn vision off. */
  vision: { engine: string; model: string } | null;
}

export async function analyzeStills(run: ThumbnailRun, stills: readonly Still[], makeVision: () => VisionEngine): Promise<Analysed> {
  const measures: Awaited<ReturnType<typeof measureImage>>[] = [];
  for (const s of stills) measures.push(await measureImage(s.path));
  let observations: FrameObservation[] = [];
  let vision: Analysed["vision"] = null;
  if (run.settings.thumbnails.vision) {
    const small = [];
    for (const s of stills) {
      const path = s.path.replace(/\.jpg$/, "-small.jpg");
      await openImage(s.path).resize({ width: ANALYSIS_WIDTH, withoutEnlargement: true }).jpeg({ quality: 85 }).toFile(path);
      small.push({ t: s.t, path });
    }
    const engine = makeVision();
    vision = { engine: engine.engine, model: engine.model };
    try {
      observations = await engine.analyze(small, { signal: run.signal });
    } finally {
      await engine.close();
    }
  }
  return { candidates: scoreCandidates(stills.map((s, i) => ({ ...s, measures: measures[i]!, observation: observations[i] }))), vision };
}

export const analyzeDetails = ({ candidates, vision }: Analysed) => ({
  frames: candidates.length,
  vision: vision ?? "disabled in platform settings",
  framesWithFaces: candidates.filter((c) => (c.observation?.faces.length ?? 0) > 0).length,
  rejected: countBy(candidates.filter((c) => c.rejected).map((c) => c.rejected!)),
});

// thumbnail_merge

export interface FramePick {
  candidate: Candidate;
  path: string;
  crop: { x: number; y: number; width: number; height: number };
  facesInside: boolean;
}

export interface Merged {
  /** The cover candidates, best first. */
  ranked: Candidate[];
  /** The frame picks, cropped to the job's size. */
  frames: FramePick[];
}

export async function mergePicks(run: ThumbnailRun, analysed: Analysed): Promise<Merged> {
  const { options, size } = run.input;
  const dir = join(run.workDir, "picks");
  await mkdir(dir, { recursive: true });
  const ranked = pickDiverse(analysed.candidates, Math.max(options.nonAiThumbnailCount, options.thumbnailCount + 2));
  if (ranked.length === 0)
    throw new StepFailure(
      "no_usable_frames",
      "every candidate frame is black, blank or blurred: there is nothing to make a thumbnail from",
      false,
    );
  const quality = JPEG_QUALITY[run.settings.thumbnails.imageQuality];
  const frames: FramePick[] = [];
  for (const [i, c] of ranked.slice(0, options.nonAiThumbnailCount).entries()) {
    const path = join(dir, `frame-${i + 1}.jpg`);
    frames.push({ candidate: c, path, ...(await cropToSize(c, size, path, quality)) });
  }
  return { ranked, frames };
}

export const mergeDetails = (analysed: Analysed) => (r: Merged) => ({
  usable: analysed.candidates.filter((c) => !c.rejected).length,
  framePicks: r.frames.map((f) => ({ t: f.candidate.t, score: f.candidate.total })),
  coverCandidates: r.ranked.length,
});

// thumbnail_audio

export interface SpokenCandidate {
  candidate: Candidate;
  levelDb: number | null;
  speaking: boolean;
}

/**
 * Orders the cover candidates by the moment as well as the picture: a frame where someone is
 * speaking (a transcript word within 1 s) and the audio is lively is a better cover than a pause.
 */
export function rankBySpeech(
  run: ThumbnailRun,
  ingested: Ingested,
  ranked: readonly Candidate[],
  transcript: ClipTranscript,
): Promise<SpokenCandidate[]> {
  const source = ingested.info.hasAudio ? ingested.source : null;
  return toolStep(run.signal, async () => {
    const words = transcript.segments.flatMap((s) => s.words ?? [{ word: s.text, start: s.start, end: s.end }]);
    const out = [];
    for (const c of ranked) {
      const speaking = words.some((w) => c.t >= w.start - 1 && c.t <= w.end + 1);
      const levelDb = source ? await meanVolume(source, Math.max(0, c.t - 1), 2, run.signal) : null;
      out.push({ candidate: c, levelDb, speaking });
    }
    const bonus = (x: { levelDb: number | null; speaking: boolean }) =>
      (x.speaking ? 0.08 : 0) + (x.levelDb !== null ? 0.07 * Math.min(1, Math.max(0, (x.levelDb + 45) / 30)) : 0);
    return out.sort((a, b) => b.candidate.total + bonus(b) - (a.candidate.total + bonus(a)));
  });
}

export const audioDetails = (ingested: Ingested) => (r: SpokenCandidate[]) => ({
  measured: ingested.info.hasAudio ? r.length : 0,
  method: ingested.info.hasAudio ? "ffmpeg volumedetect over ±1 s, words from the transcript" : "no audio stream: transcript words only",
  levelsDb: r.map((x) => x.levelDb),
});

// thumbnail_generate

export interface MadeCover {
  cover: Cover;
  prompt: string;
  variant: number;
}

export async function generateCovers(
  run: ThumbnailRun,
  image: ImageEngine,
  topic: Topic,
  spoken: readonly SpokenCandidate[],
): Promise<MadeCover[]> {
  const { size, options } = run.input;
  const frames = diverseOrder(spoken.map((x) => ({ ...x, measures: x.candidate.measures }))).map((x) => ({
    path: x.candidate.path,
    t: x.candidate.t,
    faces: (x.candidate.observation?.faces ?? []).filter((f) => f.score >= 0.5).map((f) => f.box),
  }));
  const out: MadeCover[] = [];
  for (let variant = 0; variant < options.thumbnailCount; variant++) {
    const prompt = coverPrompt(topic, variant);
    const req = { width: size.width, height: size.height, prompt, title: topic.title, frames, variant, signal: run.signal };
    out.push({ cover: await image.generate(req), prompt, variant });
  }
  return out;
}

export const generateDetails = (image: ImageEngine, topic: Topic) => (r: MadeCover[]) => ({
  engine: image.engine,
  model: image.model,
  kind: image.kind,
  covers: r.length,
  title: topic.title,
  keywords: topic.keywords,
});

// upload_thumbnail_1..3

export const UPLOAD_STAGES = ["upload_thumbnail_1", "upload_thumbnail_2", "upload_thumbnail_3"] as const;

/** What every upload stage names its entries by, fixed once before the first upload. */
export interface UploadPlan {
  image: ImageEngine;
  topic: Topic;
  frames: readonly FramePick[];
  spoken: readonly SpokenCandidate[];
  createdAt: string;
}

/**
 * Cover `i` (0-based) and, with the first cover, the frame picks, so a failed generation leaves none
 * behind. A bucket job names its files by key; a presigned one by its lists' entries (cover.0, frames.0, …).
 */
export async function uploadCover(run: ThumbnailRun, plan: UploadPlan, made: MadeCover, i: number): Promise<Thumbnail[]> {
  const { input, jobId, objects } = run;
  const { image, topic, createdAt } = plan;
  const base = `${input.sourceType === "s3_direct" ? input.resolvedOutputPrefix : ""}${jobId}/`;
  const presigned = input.sourceType === "s3_presigned";
  const bucket = input.sourceType === "s3_direct" ? input.bucket : "";
  const out: Thumbnail[] = [];
  const name = presigned ? listedOutput("cover", i) : `${base}cover-${i + 1}.jpg`;
  const key = await objects.upload(name, made.cover.jpeg, "image/jpeg");
  const frameTime = image.kind === "compositor" ? Number(made.cover.details["frameTime"] ?? NaN) : NaN;
  out.push({
    thumbnailId: `${jobId}-cover-${i + 1}`,
    jobId,
    kind: "cover",
    bucket,
    key,
    ...input.size,
    bytes: made.cover.jpeg.byteLength,
    frameTimeSec: Number.isFinite(frameTime) ? frameTime : null,
    engine: image.engine,
    model: image.model,
    engineKind: image.kind,
    prompt: image.kind === "generative" ? made.prompt : null,
    title: image.kind === "compositor" ? topic.title : null,
    scores: null,
    details: { variant: made.variant, ...made.cover.details },
    createdAt,
  });
  if (i !== 0) return out;
  const levels = new Map(plan.spoken.map((x) => [x.candidate, x.levelDb]));
  for (const [j, f] of plan.frames.entries()) {
    const fname = presigned ? listedOutput("frames", j) : `${base}frame-${j + 1}.jpg`;
    const fkey = await objects.upload(fname, { path: f.path }, "image/jpeg");
    out.push({
      thumbnailId: `${jobId}-frame-${j + 1}`,
      jobId,
      kind: "frame",
      bucket,
      key: fkey,
      ...input.size,
      bytes: (await stat(f.path)).size,
      frameTimeSec: f.candidate.t,
      ...FRAME_SELECTOR,
      engineKind: "frame",
      prompt: null,
      title: null,
      scores: scoresOf(f.candidate, levels.get(f.candidate) ?? null),
      details: { crop: f.crop, facesInside: f.facesInside },
      createdAt,
    });
  }
  return out;
}

export const uploadDetails = (r: Thumbnail[]) => ({ keys: r.map((t) => t.key), bytes: r.reduce((n, t) => n + t.bytes, 0) });

/** The step's result: covers first, then frame picks, each in order. */
export function thumbnailResult(
  run: ThumbnailRun,
  parts: { ingested: Ingested; analysed: Analysed; plan: UploadPlan; thumbnails: Thumbnail[] },
): ThumbnailResult {
  const { ingested, analysed, plan, thumbnails } = parts;
  return {
    size: run.input.size,
    sourceDurationSec: round(ingested.info.durationSec),
    candidateCount: analysed.candidates.length,
    title: plan.topic.title,
    keywords: plan.topic.keywords,
    engines: { image: { engine: plan.image.engine, model: plan.image.model, kind: plan.image.kind }, vision: analysed.vision },
    thumbnails: [...thumbnails].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === "cover" ? -1 : 1)),
  };
}

/** A frame pick at the requested size: the largest crop of its ratio around the faces, scaled. */
async function cropToSize(c: Candidate, size: { width: number; height: number }, path: string, quality: number) {
  const meta = await openImage(c.path).metadata();
  const frame = { width: meta.width ?? 0, height: meta.height ?? 0 };
  const faces = (c.observation?.faces ?? [])
    .filter((f) => f.score >= 0.5)
    .map((f) => ({
      x: f.box.x * frame.width,
      y: f.box.y * frame.height,
      width: f.box.width * frame.width,
      height: f.box.height * frame.height,
    }));
  const { crop, facesInside } = faceAwareCrop(frame, size.width / size.height, faces);
  await openImage(c.path)
    .extract({ left: crop.x, top: crop.y, width: crop.width, height: crop.height })
    .resize(size.width, size.height, { fit: "fill" })
    .jpeg({ quality })
    .toFile(path);
  return { crop, facesInside };
}

async function meanVolume(source: AcceptedSource, start: number, dur: number, signal: AbortSignal): Promise<number | null> {
  let m: RegExpExecArray | null = null;
  await runToolOk(
    FFMPEG,
    [
      "-hide_banner",
      "-nostdin",
      ...sourceInput(source, { seek: start, duration: dur }),
      "-map",
      "0:a:0",
      "-af",
      "volumedetect",
      "-f",
      "null",
      "-",
    ],
    { signal, onStderrLine: (line) => (m ??= /mean_volume:\s*(-?[\d.]+) dB/.exec(line)) },
  );
  // Silence prints "-inf", which the pattern does not take.
  return m ? Number((m as RegExpExecArray)[1]) : null;
}

function scoresOf(c: Candidate, audioLevelDb: number | null): Thumbnail["scores"] {
  return {
    sharpness: round(c.measures.sharpness),
    brightness: round(c.measures.brightness),
    contrast: round(c.measures.contrast),
    faces: c.observation?.faces.filter((f) => f.score >= 0.5).length ?? 0,
    faceQuality: round(c.faceQuality),
    audioLevelDb: audioLevelDb === null ? null : round(audioLevelDb),
    total: c.total,
  };
}

function countBy(xs: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}
