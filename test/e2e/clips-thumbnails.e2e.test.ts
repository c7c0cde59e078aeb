import { readFile } from "node:fs/promises";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { startE2E, type E2E } from "../support/e2e-stack";
import { faceVideo } from "../support/media-fixtures";

/**
 * Clips and thumbnails through the whole local stack: a two-person video uploaded to the bucket,
 * transcribed, then clip generation and thumbnails on the transcript, run by a real gpu-runner
 * (ffmpeg, PocketSphinx, Human, the compositor), their files read back from the bucket.
 */
let e: E2E;
let textSourceId: string;

beforeAll(async () => {
  // Short clip bounds and a fast preset keep the render to seconds; the pipeline is the same.
  e = await startE2E({ runners: 1, runnerConcurrency: 2, settings: { clips: { minClipSec: 8, maxClipSec: 14, x264Preset: "superfast" } } });
  await e.s3.putObject(e.tenant.bucket, "e2e/interview.mp4", await readFile(await faceVideo("interview")), "video/mp4");
  const job = await e.api<Job>("POST", "/v1/jobs", {
    serviceType: "transcription",
    input: { sourceType: "s3_direct", connectionId: e.tenant.connectionId, bucket: e.tenant.bucket, sourceKey: "e2e/interview.mp4" },
  });
  const done = await e.waitForJob(job.jobId, ["completed", "failed"], 180_000);
  expect(done.status, JSON.stringify(done.error)).toBe("completed");
  textSourceId = String(job.input["textSourceId"]);
}, 240_000);
afterAll(async () => e?.close());

const head = async (key: string) => (await e.s3.getObject(e.tenant.bucket, key)).arrayBuffer().then((b) => Buffer.from(b));

describe("clips and thumbnails end to end", () => {
  it("a transcribed video becomes a vertical clip and its poster in the bucket, with a clip generation record", async () => {
    const job = await e.api<Job>("POST", "/v1/jobs", {
      serviceType: "clip_generation",
      input: { textSourceId, options: { maxClips: 1, layout: "vertical_9_16" } },
    });
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 240_000);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    const id = String(job.input["clipGenerationId"]);
    const rec = await e.api<{ status: string; clips: Array<{ videoKey: string; posterKey: string; durationSec: number }> }>(
      "GET",
      `/v1/clip-generations/${id}`,
    );
    expect(rec.status).toBe("completed");
    expect(rec.clips).toHaveLength(1);
    const video = await head(rec.clips[0]!.videoKey);
    expect(video.subarray(4, 8).toString("latin1")).toBe("ftyp");
    expect((await sharp(await head(rec.clips[0]!.posterKey)).metadata()).format).toBe("jpeg");
    expect(done.resultSummary).toMatchObject({ clipGenerationId: id, clipCount: 1 });
  }, 300_000);

  it("thumbnails put covers and frame picks in the bucket and on the transcript", async () => {
    const job = await e.api<Job>("POST", "/v1/jobs", {
      serviceType: "thumbnail",
      input: { textSourceId, options: { thumbnailCount: 1, nonAiThumbnailCount: 2 } },
    });
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 180_000);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    const set = await e.api<{ thumbnailCount: number; thumbnails: Array<{ kind: string; key: string; width: number; height: number }> }>(
      "GET",
      `/v1/thumbnails/${textSourceId}`,
    );
    expect(set.thumbnails.map((t) => t.kind)).toEqual(["cover", "frame", "frame"]);
    for (const t of set.thumbnails) {
      const meta = await sharp(await head(t.key)).metadata();
      expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: "jpeg", width: t.width, height: t.height });
    }
    expect(done.resultSummary).toMatchObject({ textSourceId, thumbnailCount: 1, newThumbnailCount: 1, nonAiThumbnailCount: 2 });
  }, 240_000);
});
