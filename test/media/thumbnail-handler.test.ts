import { mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import phash from "sharp-phash";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClipTranscript } from "../../contracts/clips";
import { flattenOutputUrls, HANDOVER_TRANSCRIPT_CALL } from "../../contracts/presigned";
import type { S3Client } from "../../contracts/s3-client";
import { ThumbnailStoredSchema, thumbnailStep } from "../../contracts/services/thumbnail";
import { stepSpec } from "../../contracts/services/types";
import { ThumbnailResultSchema, type ThumbnailResult } from "../../contracts/thumbnails";
import { AFTER_HANDOVER, typedContext } from "../support/typed-context";
import { INPUT_GUARD, runToolOk } from "../../gpu-runner/media/spawn";
import { hashDistance } from "../../gpu-runner/services/thumbnail/frames";
import { createThumbnailHandler } from "../../gpu-runner/services/thumbnail/handler";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { localS3Client, makeHandlerContext, NO_PLATFORM, storageGrant, type TestContext } from "../support/handler-context";
import { presign } from "../support/presign";
import { faceVideo } from "../support/media-fixtures";

/**
 * The thumbnail runner step on real media: the two-person interview reel (real faces), scored and
 * picked for real, covers made by the local compositor, everything read back from a local S3.
 */

const BUCKET = "thumbs-test";
const SIZE = { width: 1536, height: 1024 };
/** The shape SIZE was computed from, as create stores it beside the counts. */
const SHAPE = { ratioWidth: 3, ratioHeight: 2, resolution: 1024 };
const TRANSCRIPT: ClipTranscript = {
  textSourceId: "txt_test",
  language: "en",
  durationSec: 20,
  segments: [
    { start: 0.5, end: 6, text: "Today we talk about humpback whales and how whales sing to each other across the ocean." },
    { start: 6.5, end: 12, text: "Whale songs travel for hundreds of kilometres through the ocean." },
    { start: 12.5, end: 18, text: "Researchers record the songs with underwater microphones." },
  ],
};

/** The handler, typed for any task: the context reads its input through the contract's schema, as the runner does. */
const thumbnails = (ctx: TestContext) =>
  createThumbnailHandler()(typedContext(ctx, { input: ThumbnailStoredSchema, outputs: AFTER_HANDOVER }));

let s3: LocalS3;
let client: S3Client;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  client = localS3Client(s3);
  await client.putObject(BUCKET, "scratch/transcript.json", JSON.stringify(TRANSCRIPT), "application/json");
  await client.putObject(BUCKET, "src/interview.mp4", await readFile(await faceVideo("interview")), "video/mp4");
  const dir = await mkdtemp(path.join(os.tmpdir(), "thumbs-black-"));
  const black = path.join(dir, "black.mp4");
  await runToolOk(
    "ffmpeg",
    ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", ...INPUT_GUARD, "-i", "color=black:s=640x360:d=6:r=10"].concat([
      "-pix_fmt",
      "yuv420p",
      black,
    ]),
  );
  await client.putObject(BUCKET, "src/black.mp4", await readFile(black), "video/mp4");
}, 180_000);

afterAll(async () => {
  await s3?.close();
});

/** Runs the handler; a failure comes back as `error` beside the context, so its events can be read. */
async function runThumbnails(
  sourceKey: string,
  options = { thumbnailCount: 2, nonAiThumbnailCount: 3 },
): Promise<{ ctx: TestContext; result: ThumbnailResult; error?: undefined } | { ctx: TestContext; result?: undefined; error: unknown }> {
  const ctx = await makeHandlerContext({
    input: {
      textSourceId: "txt_test",
      sourceType: "s3_direct",
      connectionId: "stc_test",
      bucket: BUCKET,
      sourceKey,
      resolvedOutputPrefix: `out/${sourceKey.replace(/\W/g, "-")}/`,
      options: { ...SHAPE, ...options },
      size: SIZE,
      imageModel: null,
    },
    step: stepSpec("thumbnail", thumbnailStep),
    outputs: { fetch_transcription: { transcriptKey: "scratch/transcript.json" } },
    storage: storageGrant(s3, BUCKET),
    settings: { thumbnails: { maxCandidates: 12 } },
  });
  try {
    return { ctx, result: ThumbnailResultSchema.parse(await thumbnails(ctx)) };
  } catch (error) {
    return { ctx, error };
  } finally {
    await ctx.dispose();
  }
}

async function object(key: string): Promise<Buffer> {
  return Buffer.from(await (await client.getObject(BUCKET, key)).arrayBuffer());
}

describe("thumbnails on a two-person interview", () => {
  let run: { ctx: TestContext; result: ThumbnailResult };
  beforeAll(async () => {
    const r = await runThumbnails("src/interview.mp4");
    if (!r.result) throw r.error;
    run = r;
  }, 240_000);

  it("reports every runner stage in spec order inside the thumbnail_pipeline envelope, skipping the third upload", () => {
    const events = run.ctx.report.events.filter((e) => e.event !== "started" || e.stage === "thumbnail_pipeline");
    expect(events.map((e) => `${e.stage}:${e.event}`)).toEqual([
      "thumbnail_pipeline:started",
      "download:completed",
      "thumbnail_ingest:completed",
      "thumbnail_encode:completed",
      "thumbnail_analyze:completed",
      "thumbnail_merge:completed",
      "thumbnail_audio:completed",
      "thumbnail_generate:completed",
      "upload_thumbnail_1:completed",
      "upload_thumbnail_2:completed",
      "upload_thumbnail_3:skipped",
      "thumbnail_pipeline:completed",
    ]);
  });

  it("uploads each cover and frame pick as a JPEG of exactly the requested size, under the prefix and job", async () => {
    expect(run.result.thumbnails.map((t) => `${t.kind}:${t.key}`)).toEqual([
      "cover:out/src-interview-mp4/job_test/cover-1.jpg",
      "cover:out/src-interview-mp4/job_test/cover-2.jpg",
      "frame:out/src-interview-mp4/job_test/frame-1.jpg",
      "frame:out/src-interview-mp4/job_test/frame-2.jpg",
      "frame:out/src-interview-mp4/job_test/frame-3.jpg",
    ]);
    for (const t of run.result.thumbnails) {
      const meta = await sharp(await object(t.key)).metadata();
      expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: "jpeg", ...SIZE });
    }
  });

  it("records the local covers as a compositor with the title it set, never as an AI model", () => {
    const covers = run.result.thumbnails.filter((t) => t.kind === "cover");
    expect(run.result.engines.image).toMatchObject({ engine: "local-compositor", kind: "compositor" });
    for (const c of covers) {
      expect(c).toMatchObject({ engine: "local-compositor", engineKind: "compositor", prompt: null, title: run.result.title });
      expect(c.frameTimeSec).not.toBeNull();
    }
  });

  it("takes title and keywords from what is said", () => {
    expect(run.result.keywords.slice(0, 2)).toEqual(["whales", "ocean"]);
    expect(run.result.title.toLowerCase()).toContain("whale");
  });

  it("never picks a black, blank or blurred frame", async () => {
    for (const t of run.result.thumbnails.filter((x) => x.kind === "frame")) {
      const stats = await sharp(await object(t.key))
        .greyscale()
        .stats();
      expect(stats.channels[0]!.mean).toBeGreaterThan(28);
      expect(stats.channels[0]!.stdev).toBeGreaterThan(14);
      expect(t.scores?.sharpness).toBeGreaterThan(20);
    }
  });

  it("picks frames that look different from each other, at least a second apart", async () => {
    const frames = run.result.thumbnails.filter((x) => x.kind === "frame");
    const hashes = await Promise.all(frames.map(async (f) => phash(await object(f.key))));
    for (let i = 0; i < frames.length; i++)
      for (let j = i + 1; j < frames.length; j++) {
        expect(hashDistance(hashes[i]!, hashes[j]!)).toBeGreaterThan(0);
        expect(Math.abs(frames[i]!.frameTimeSec! - frames[j]!.frameTimeSec!)).toBeGreaterThanOrEqual(1);
      }
  });

  it("prefers frames with a face, scored by the vision engine it names", () => {
    const frames = run.result.thumbnails.filter((x) => x.kind === "frame");
    expect(run.result.engines.vision?.engine).toBe("local-human");
    expect(frames[0]!.scores!.faces).toBeGreaterThan(0);
    expect(frames[0]!.scores!.faceQuality).toBeGreaterThan(0);
  });
});

describe("thumbnails on a black video", () => {
  it("fails with no_usable_frames, not retryable, closes the envelope as failed, and uploads nothing", async () => {
    const { ctx, error } = await runThumbnails("src/black.mp4", { thumbnailCount: 1, nonAiThumbnailCount: 1 });
    expect(error).toMatchObject({ code: "no_usable_frames", retryable: false });
    expect(ctx.report.eventsOf("thumbnail_pipeline").at(-1)).toMatchObject({ event: "failed", error: { code: "no_usable_frames" } });
    for (const name of ["cover-1.jpg", "frame-1.jpg"])
      expect(await client.headObject(BUCKET, `out/src-black-mp4/job_test/${name}`)).toBeNull();
  }, 120_000);
});

describe("thumbnails of an s3_presigned job", () => {
  it("reads the source and transcript without a bucket and writes cover n and frame n to the n-th URL of their lists", async () => {
    const calls: string[] = [];
    const put = (key: string) => presign(s3, "PUT", BUCKET, key);
    const ctx = await makeHandlerContext({
      input: {
        textSourceId: "txt_test",
        sourceType: "s3_presigned",
        sourceUrl: "https://s3.test/thumbs-test/src/interview.mp4?…redacted",
        outputUrls: {
          cover: ["https://s3.test/cover-a.jpg?…redacted"],
          frames: ["https://s3.test/frame-a.jpg?…redacted", "https://s3.test/frame-b.jpg?…redacted"],
        },
        options: { ...SHAPE, thumbnailCount: 1, nonAiThumbnailCount: 2 },
        size: SIZE,
        imageModel: null,
      },
      step: stepSpec("thumbnail", thumbnailStep),
      outputs: { fetch_transcription: { segmentCount: TRANSCRIPT.segments.length } },
      storage: null,
      presigned: {
        sourceUrl: await presign(s3, "GET", BUCKET, "src/interview.mp4"),
        outputUrls: flattenOutputUrls({
          cover: [await put("presigned/cover-a.jpg")],
          frames: [await put("presigned/frame-a.jpg"), await put("presigned/frame-b.jpg")],
        }),
      },
      settings: { thumbnails: { maxCandidates: 12 } },
      platform: { ...NO_PLATFORM, call: async (name, _body, schema) => (calls.push(name), schema.parse(TRANSCRIPT)) },
    });
    try {
      const result = ThumbnailResultSchema.parse(await thumbnails(ctx));
      expect(calls).toEqual([HANDOVER_TRANSCRIPT_CALL]);
      expect(result.thumbnails.map((t) => t.key)).toEqual([
        expect.stringMatching(/\/presigned\/cover-a\.jpg\?…redacted$/),
        expect.stringMatching(/\/presigned\/frame-a\.jpg\?…redacted$/),
        expect.stringMatching(/\/presigned\/frame-b\.jpg\?…redacted$/),
      ]);
      for (const key of ["presigned/cover-a.jpg", "presigned/frame-a.jpg", "presigned/frame-b.jpg"])
        expect((await sharp(await object(key)).metadata()).width).toBe(SIZE.width);
    } finally {
      await ctx.dispose();
    }
  }, 240_000);
});
