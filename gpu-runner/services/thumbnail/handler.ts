import { mkdir } from "node:fs/promises";
import type { thumbnailStep } from "../../../contracts/services/thumbnail";
import type { Settings } from "../../../contracts/settings";
import { toStepError } from "../../../contracts/step-failure";
import type { Thumbnail } from "../../../contracts/thumbnails";
import type { EngineEnv } from "../../engines/config";
import { createImageEngine } from "../../engines/image/factory";
import type { ImageEngine } from "../../engines/image/interface";
import { createVisionEngine } from "../../engines/vision/factory";
import type { VisionEngine } from "../../engines/vision/interface";
import { SOURCE } from "../../object-store";
import { isCancelled } from "../../stage-reporter";
import { parseStepSettings } from "../../step-input";
import { handedOverTranscript } from "../shared/handover";
import type { ServiceStepHandler } from "../types";
import {
  analyzeDetails,
  analyzeStills,
  audioDetails,
  downloadDetails,
  downloadSource,
  encodeDetails,
  encodeStills,
  generateCovers,
  generateDetails,
  ingestDetails,
  ingestSource,
  mergeDetails,
  mergePicks,
  rankBySpeech,
  requireCandidateTimes,
  sourceKeyOf,
  thumbnailResult,
  UPLOAD_STAGES,
  uploadCover,
  uploadDetails,
  type ThumbnailRun,
  type UploadPlan,
} from "./stages";
import { topicOf } from "./text";

/**
 * The thumbnail runner step: from the source video and its transcript to cover JPEGs (the image
 * engine: a hosted text-to-image model, or the local compositor) and frame picks, uploaded to the
 * customer's bucket, one stage per part (stages.ts). The whole step is wrapped in the
 * `thumbnail_pipeline` envelope stage.
 */

type ThumbnailHandler = ServiceStepHandler<"thumbnail", typeof thumbnailStep>;

export interface ThumbnailHandlerDeps {
  createVision?: (settings: Settings["thumbnails"], env: EngineEnv) => VisionEngine;
  createImage?: (settings: Settings["thumbnails"], env: EngineEnv, model: string | null) => ImageEngine;
  env?: EngineEnv;
}

export function createThumbnailHandler(deps: ThumbnailHandlerDeps = {}): ThumbnailHandler {
  const makeVision = deps.createVision ?? ((s, env) => createVisionEngine(s.visionEngine, env));
  const makeImage =
    deps.createImage ??
    ((s, env, model) => createImageEngine(s.imageEngine, env, { requestTimeoutMs: 120_000, ...(model ? { model } : {}) }));
  return async (ctx) => {
    const { report, signal, input } = ctx;
    const settings = parseStepSettings(ctx.task.settings, ["thumbnails", "runner"]);
    const env = deps.env ?? process.env;
    const objects = await ctx.openObjects({ [SOURCE]: sourceKeyOf(input) ?? "" });
    const run: ThumbnailRun = { input, settings, jobId: ctx.task.jobId, workDir: ctx.workDir, signal, objects };
    await mkdir(ctx.workDir, { recursive: true });
    await report.event({ stage: "thumbnail_pipeline", event: "started", details: { size: input.size, ...input.options } });
    try {
      const transcript = await handedOverTranscript(ctx);
      await report.stage("download", () => downloadSource(run), downloadDetails(run));
      const ingested = await report.stage("thumbnail_ingest", () => ingestSource(run), ingestDetails(run));
      requireCandidateTimes(ingested);
      const stills = await report.stage("thumbnail_encode", () => encodeStills(run, ingested), encodeDetails(run));
      const vision = () => makeVision(settings.thumbnails, env);
      const analysed = await report.stage("thumbnail_analyze", () => analyzeStills(run, stills, vision), analyzeDetails);
      const merged = await report.stage("thumbnail_merge", () => mergePicks(run, analysed), mergeDetails(analysed));
      const spoken = await report.stage(
        "thumbnail_audio",
        () => rankBySpeech(run, ingested, merged.ranked, transcript),
        audioDetails(ingested),
      );
      const topic = topicOf(transcript);
      const image = makeImage(settings.thumbnails, env, input.imageModel);
      const covers = await report.stage(
        "thumbnail_generate",
        () => generateCovers(run, image, topic, spoken),
        generateDetails(image, topic),
      );
      const plan: UploadPlan = { image, topic, frames: merged.frames, spoken, createdAt: new Date().toISOString() };
      const thumbnails: Thumbnail[] = [];
      for (const [i, stage] of UPLOAD_STAGES.entries()) {
        const made = covers[i];
        if (made) thumbnails.push(...(await report.stage(stage, () => uploadCover(run, plan, made, i), uploadDetails)));
        else await report.skip(stage, `thumbnailCount is ${input.options.thumbnailCount}`);
      }
      const result = thumbnailResult(run, { ingested, analysed, plan, thumbnails });
      await report.event({
        stage: "thumbnail_pipeline",
        event: "completed",
        details: { covers: covers.length, frames: merged.frames.length, engine: image.engine, kind: image.kind },
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

export const thumbnailHandler: ThumbnailHandler = createThumbnailHandler();
