import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { openImage } from "../../media/images";
import { z } from "zod";
import type { ClipTranscript } from "../../../contracts/clips";
import { listedOutput } from "../../../contracts/presigned";
import { thumbnailStep } from "../../../contracts/services/thumbnail";
import type { StageOf } from "../../../contracts/services/types";
import type { Settings } from "../../../contracts/settings";
import type { Thumbnail, ThumbnailResult } from "../../../contracts/thumbnails";
import type { EngineEnv } from "../../engines/config";
import { createImageEngine } from "../../engines/image/factory";
import type { Cover, ImageEngine } from "../../engines/image/interface";
import { faceAwareCrop } from "../../engines/image/local-compositor";
import { createVisionEngine } from "../../engines/vision/factory";
import type { FrameObservation, VisionEngine } from "../../engines/vision/interface";
import { toStepError } from "../../../contracts/step-failure";
import { StepFailure } from "../../../contracts/step-failure";
import type { StepHandler } from "../../handler";
import { SOURCE } from "../../object-store";
import { isCancelled } from "../../stage-reporter";
import { FFMPEG, runToolOk } from "../../media/spawn";
import { openSource, sourceInput, type AcceptedSource } from "../../media/source";
import { detectSceneCuts, videoInfo } from "../clip-generation/media";
import { parseStepInput, parseStepSettings, round3 } from "../../step-input";
import { handedOverTranscript } from "../shared/handover";
import { toolStep } from "../../objects";
import { candidateTimes, diverseOrder, extractStills, measureImage, pickDiverse, scoreCandidates, type Candidate } from "./frames";
import { coverPrompt, topicOf } from "./text";

/**
 * The thumbnail runner step: from the source video and its transcript to cover JPEGs (the image
 * engine: a hosted text-to-image model, or the local compositor) and frame picks, uploaded to the
 * customer's bucket. The whole step is wrapped in the `thumbnail_pipeline` envelope stage.
 */

type Stage = StageOf<typeof thumbnailStep>;

const InputSchema = z.object({
  textSourceId: z.string(),
  // A bucket job's; an s3_presigned job has its URLs in the task's presigned grant instead.
  bucket: z.string().optional(),
  sourceKey: z.string().optional(),
  resolvedOutputPrefix: z.string().optional(),
  options: z.object({ thumbnailCount: z.number().int().min(1).max(3), nonAiThumbnailCount: z.number().int().min(1).max(5) }),
  size: z.object({ width: z.number().int().positive(), height: z.number().int().positive() }),
  imageModel: z.string().nullable().optional(),
});

export interface ThumbnailHandlerDeps {
  createVision?: (settings: Settings["thumbnails"], env: EngineEnv) => VisionEngine;
  createImage?: (settings: Settings["thumbnails"], env: EngineEnv, model: string | null) => ImageEngine;
  env?: EngineEnv;
}

/** Width of the copies the vision engine reads: faces, not detail. */
const ANALYSIS_WIDTH = 640;
const SCENE_THRESHOLD = 10;
const JPEG_QUALITY: Record<Settings["thumbnails"]["imageQuality"], number> = { low: 70, medium: 82, high: 92, auto: 88 };
export const FRAME_SELECTOR = { engine: "frame-selector", model: "sharpness+exposure+faces, sharp-phash diversity" };
const UPLOAD_STAGES = ["upload_thumbnail_1", "upload_thumbnail_2", "upload_thumbnail_3"] as const;

export function createThumbnailHandler(deps: ThumbnailHandlerDeps = {}): StepHandler<Stage> {
  const makeVision = deps.createVision ?? ((s, env) => createVisionEngine(s.visionEngine, env));
  const makeImage =
    deps.createImage ??
    ((s, env, model) => createImageEngine(s.imageEngine, env, { requestTimeoutMs: 120_000, ...(model ? { model } : {}) }));
  return async (ctx) => {
    const { report, signal, task } = ctx;
    const input = parseStepInput(InputSchema, task.input, "thumbnail input");
    const settings = parseStepSettings(task.settings, ["thumbnails", "runner"]);
    const ts = settings.thumbnails;
    const env = deps.env ?? process.env;
    const objects = await ctx.openObjects({ [SOURCE]: input.sourceKey ?? "" });
    await mkdir(ctx.workDir, { recursive: true });
    await report.event({ stage: "thumbnail_pipeline", event: "started", details: { size: input.size, ...input.options } });
    try {
      const transcript = await handedOverTranscript(ctx);

      const sourcePath = join(ctx.workDir, "source");
      await report.stage(
        "download",
        () => objects.download(SOURCE, sourcePath, signal),
        (bytes) => ({ bytes, ...(input.sourceKey ? { sourceKey: input.sourceKey } : {}) }),
      );

      const { source, info, times } = await report.stage(
        "thumbnail_ingest",
        () =>
          toolStep(signal, async () => {
            const source = await openSource(sourcePath, { kind: "video", limits: settings.runner, signal });
            const info = videoInfo(source);
            if (!info) throw new StepFailure("unsupported_media", "the source has no video stream to take thumbnails from", false);
            const { cuts } = await detectSceneCuts(source, SCENE_THRESHOLD, signal);
            return { source, info, cuts, times: candidateTimes(info.durationSec, cuts, ts.maxCandidates) };
          }),
        (r) => ({
          format: r.source.format,
          durationSec: round(r.info.durationSec),
          width: r.info.width,
          height: r.info.height,
          sceneCuts: r.cuts.length,
          candidates: r.times.length,
          maxCandidates: ts.maxCandidates,
        }),
      );
      if (times.length === 0) throw new StepFailure("unsupported_media", "the source has no frames to take thumbnails from", false);

      const stillsDir = join(ctx.workDir, "stills");
      await mkdir(stillsDir, { recursive: true });
      const stillWidth = Math.min(1920, Math.max(input.size.width, input.size.height));
      const stills = await report.stage(
        "thumbnail_encode",
        () => toolStep(signal, () => extractStills(source, times, stillsDir, stillWidth, signal)),
        (r) => ({ stills: r.length, maxWidth: stillWidth, times: r.map((s) => s.t) }),
      );

      let vision: VisionEngine | null = null;
      const analysed = await report.stage(
        "thumbnail_analyze",
        async () => {
          const measures: Awaited<ReturnType<typeof measureImage>>[] = [];
          for (const s of stills) measures.push(await measureImage(s.path));
          let observations: FrameObservation[] = [];
          if (ts.vision) {
            const small = [];
            for (const s of stills) {
              const path = s.path.replace(/\.jpg$/, "-small.jpg");
              await openImage(s.path).resize({ width: ANALYSIS_WIDTH, withoutEnlargement: true }).jpeg({ quality: 85 }).toFile(path);
              small.push({ t: s.t, path });
            }
            const engine = makeVision(ts, env);
            vision = engine;
            try {
              observations = await engine.analyze(small, { signal });
            } finally {
              await engine.close();
            }
          }
          return scoreCandidates(stills.map((s, i) => ({ ...s, measures: measures[i]!, observation: observations[i] })));
        },
        (cands) => ({
          frames: cands.length,
          vision: vision ? { engine: vision.name, model: vision.model } : "disabled in platform settings",
          framesWithFaces: cands.filter((c) => (c.observation?.faces.length ?? 0) > 0).length,
          rejected: countBy(cands.filter((c) => c.rejected).map((c) => c.rejected!)),
        }),
      );

      const picksDir = join(ctx.workDir, "picks");
      await mkdir(picksDir, { recursive: true });
      const quality = JPEG_QUALITY[ts.imageQuality];
      const merged = await report.stage(
        "thumbnail_merge",
        async () => {
          const ranked = pickDiverse(analysed, Math.max(input.options.nonAiThumbnailCount, input.options.thumbnailCount + 2));
          if (ranked.length === 0)
            throw new StepFailure(
              "no_usable_frames",
              "every candidate frame is black, blank or blurred: there is nothing to make a thumbnail from",
              false,
            );
          const frames = [];
          for (const [i, c] of ranked.slice(0, input.options.nonAiThumbnailCount).entries()) {
            const path = join(picksDir, `frame-${i + 1}.jpg`);
            frames.push({ candidate: c, path, ...(await cropToSize(c, input.size, path, quality)) });
          }
          return { ranked, frames };
        },
        (r) => ({
          usable: analysed.filter((c) => !c.rejected).length,
          framePicks: r.frames.map((f) => ({ t: f.candidate.t, score: f.candidate.total })),
          coverCandidates: r.ranked.length,
        }),
      );

      const withAudio = await report.stage(
        "thumbnail_audio",
        () => toolStep(signal, () => rankBySpeech(merged.ranked, transcript, info.hasAudio ? source : null, signal)),
        (r) => ({
          measured: info.hasAudio ? r.length : 0,
          method: info.hasAudio ? "ffmpeg volumedetect over ±1 s, words from the transcript" : "no audio stream: transcript words only",
          levelsDb: r.map((x) => x.levelDb),
        }),
      );

      const topic = topicOf(transcript);
      const image = makeImage(ts, env, input.imageModel ?? null);
      const coverFrames = diverseOrder(withAudio.map((x) => ({ ...x, measures: x.candidate.measures }))).map((x) => ({
        path: x.candidate.path,
        t: x.candidate.t,
        faces: (x.candidate.observation?.faces ?? []).filter((f) => f.score >= 0.5).map((f) => f.box),
      }));
      const covers = await report.stage(
        "thumbnail_generate",
        async () => {
          const out: Array<{ cover: Cover; prompt: string; variant: number }> = [];
          for (let variant = 0; variant < input.options.thumbnailCount; variant++) {
            const prompt = coverPrompt(topic, variant);
            const req = {
              width: input.size.width,
              height: input.size.height,
              prompt,
              title: topic.title,
              frames: coverFrames,
              variant,
              signal,
            };
            out.push({ cover: await image.generate(req), prompt, variant });
          }
          return out;
        },
        (r) => ({
          engine: image.name,
          model: image.model,
          kind: image.kind,
          covers: r.length,
          title: topic.title,
          keywords: topic.keywords,
        }),
      );

      const now = new Date().toISOString();
      const base = `${input.resolvedOutputPrefix ?? ""}${task.jobId}/`;
      // A bucket job names its files by key; a presigned one by its lists' entries (cover.0, frames.0, …).
      const presigned = task.presigned != null;
      const bucket = input.bucket ?? "";
      const thumbnails: Thumbnail[] = [];
      const levels = new Map(withAudio.map((x) => [x.candidate, x.levelDb]));
      for (const [i, stage] of UPLOAD_STAGES.entries()) {
        const c = covers[i];
        if (!c) {
          await report.skip(stage, `thumbnailCount is ${input.options.thumbnailCount}`);
          continue;
        }
        const added = await report.stage(
          stage,
          async () => {
            const out: Thumbnail[] = [];
            const name = presigned ? listedOutput("cover", i) : `${base}cover-${i + 1}.jpg`;
            const key = await objects.upload(name, c.cover.jpeg, "image/jpeg");
            const frameTime = image.kind === "compositor" ? Number(c.cover.details["frameTime"] ?? NaN) : NaN;
            out.push({
              thumbnailId: `${task.jobId}-cover-${i + 1}`,
              jobId: task.jobId,
              kind: "cover",
              bucket,
              key,
              ...input.size,
              bytes: c.cover.jpeg.byteLength,
              frameTimeSec: Number.isFinite(frameTime) ? frameTime : null,
              engine: image.name,
              model: image.model,
              engineKind: image.kind,
              prompt: image.kind === "generative" ? c.prompt : null,
              title: image.kind === "compositor" ? topic.title : null,
              scores: null,
              details: { variant: c.variant, ...c.cover.details },
              createdAt: now,
            });
            // The frame picks go up with the first cover, so a failed generation leaves none behind.
            if (i === 0) {
              for (const [j, f] of merged.frames.entries()) {
                const fname = presigned ? listedOutput("frames", j) : `${base}frame-${j + 1}.jpg`;
                const fkey = await objects.upload(fname, { path: f.path }, "image/jpeg");
                out.push({
                  thumbnailId: `${task.jobId}-frame-${j + 1}`,
                  jobId: task.jobId,
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
                  createdAt: now,
                });
              }
            }
            return out;
          },
          (r) => ({ keys: r.map((t) => t.key), bytes: r.reduce((n, t) => n + t.bytes, 0) }),
        );
        thumbnails.push(...added);
      }
      // Covers first, then frame picks, each in order.
      thumbnails.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === "cover" ? -1 : 1));

      const result: ThumbnailResult = {
        size: input.size,
        sourceDurationSec: round(info.durationSec),
        candidateCount: analysed.length,
        title: topic.title,
        keywords: topic.keywords,
        engines: {
          image: { engine: image.name, model: image.model, kind: image.kind },
          vision: vision ? { engine: (vision as VisionEngine).name, model: (vision as VisionEngine).model } : null,
        },
        thumbnails,
      };
      await report.event({
        stage: "thumbnail_pipeline",
        event: "completed",
        details: { covers: covers.length, frames: merged.frames.length, engine: image.name, kind: image.kind },
      });
      return result;
    } catch (err) {
      // The envelope closes too, so a timeline never shows the pipeline still running.
      if (!signal.aborted && !isCancelled(err)) {
        const { code, message } = toStepError(err);
        await report.event({ stage: "thumbnail_pipeline", event: "failed", error: { code, message } }).catch(() => undefined);
      }
      throw err;
    }
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

/**
 * Orders the cover candidates by the moment as well as the picture: a frame where someone is
 * speaking (a transcript word within 1 s) and the audio is lively is a better cover than a pause.
 */
async function rankBySpeech(
  ranked: readonly Candidate[],
  transcript: ClipTranscript,
  source: AcceptedSource | null,
  signal: AbortSignal,
): Promise<Array<{ candidate: Candidate; levelDb: number | null; speaking: boolean }>> {
  const words = transcript.segments.flatMap((s) => s.words ?? [{ word: s.text, start: s.start, end: s.end }]);
  const out = [];
  for (const c of ranked) {
    const speaking = words.some((w) => c.t >= w.start - 1 && c.t <= w.end + 1);
    const levelDb = source ? await meanVolume(source, Math.max(0, c.t - 1), 2, signal) : null;
    out.push({ candidate: c, levelDb, speaking });
  }
  const bonus = (x: { levelDb: number | null; speaking: boolean }) =>
    (x.speaking ? 0.08 : 0) + (x.levelDb !== null ? 0.07 * Math.min(1, Math.max(0, (x.levelDb + 45) / 30)) : 0);
  return out.sort((a, b) => b.candidate.total + bonus(b) - (a.candidate.total + bonus(a)));
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

const round = round3;

export const thumbnailHandler: StepHandler<Stage> = createThumbnailHandler();
