import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { startE2E, type E2E } from "../support/e2e-stack";
import { faceVideo, speechVideo } from "../support/media-fixtures";
import { presign, transcriptOutputUrls } from "../support/presign";
import { startWebhookReceiver } from "../support/webhook-receiver";

/**
 * An `s3_presigned` transcription through the whole local stack: URLs signed with the local S3
 * server's credentials, no storage connection, a real runner writing the four files through them.
 * The signatures never show: not in the job, not in its webhooks, not in any log line of the stack.
 */
let e: E2E;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  e = await startE2E({ runners: 1, runnerConcurrency: 2, settings: { webhooks: { allowLoopbackHttp: true } } });
  // Deliveries are not verified here (the receiver answers 401 to them all): only their bodies matter.
  receiver = await startWebhookReceiver(() => "unused");
});
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});

const SIGNATURE = /X-Amz-Signature|X-Amz-Credential/i;

let textSourceId: string;

describe("presigned transcription end to end", () => {
  it("writes its four files through presigned URLs, and no signature reaches the job, its webhooks or the logs", async () => {
    const bucket = e.tenant.bucket;
    await e.s3.putObject(bucket, "presigned/speech.mp4", await readFile(await speechVideo()), "video/mp4");
    const sourceUrl = await presign(e.stack.s3, "GET", bucket, "presigned/speech.mp4");
    const outputUrls = await transcriptOutputUrls(e.stack.s3, bucket, "presigned/out/");

    const job = await e.api<Job>("POST", "/v1/jobs", {
      serviceType: "transcription",
      input: { sourceType: "s3_presigned", sourceUrl, outputUrls, options: { language: "en" } },
      webhookUrl: receiver.url,
    });
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 180_000);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    textSourceId = String(job.input["textSourceId"]);

    const text = await (await e.s3.getObject(bucket, "presigned/out/transcript.txt")).text();
    expect(text).toMatch(/consider how much there might be/);
    const doc = JSON.parse(await (await e.s3.getObject(bucket, "presigned/out/segments.json")).text()) as { segments: unknown[] };
    expect(doc.segments.length).toBe((done.resultSummary as { segmentCount: number }).segmentCount);
    expect(await (await e.s3.getObject(bucket, "presigned/out/transcript.srt")).text()).toMatch(/-->/);
    expect(await (await e.s3.getObject(bucket, "presigned/out/transcript.vtt")).text()).toMatch(/^WEBVTT/);

    await e.waitForJobWhere(job.jobId, "its completed webhook", () => receiver.received.some((r) => r.body["event"] === "completed"));
    expect(JSON.stringify(job)).not.toMatch(SIGNATURE);
    expect(JSON.stringify(done)).not.toMatch(SIGNATURE);
    expect(JSON.stringify(receiver.received.filter((r) => r.body["jobId"] === job.jobId))).not.toMatch(SIGNATURE);
    expect(e.stack.logs()).not.toMatch(SIGNATURE);
  });

  it("thumbnails of that transcript read the video through their own URL and write each cover and frame to its URL", async () => {
    const bucket = e.tenant.bucket;
    await e.s3.putObject(bucket, "presigned/faces.mp4", await readFile(await faceVideo("interview")), "video/mp4");
    const put = (key: string) => presign(e.stack.s3, "PUT", bucket, key);
    const job = await e.api<Job>("POST", "/v1/jobs", {
      serviceType: "thumbnail",
      input: {
        textSourceId,
        sourceType: "s3_presigned",
        sourceUrl: await presign(e.stack.s3, "GET", bucket, "presigned/faces.mp4"),
        outputUrls: { cover: [await put("presigned/thumbs/cover.jpg")], frames: [await put("presigned/thumbs/frame.jpg")] },
        options: { thumbnailCount: 1, nonAiThumbnailCount: 1 },
      },
    });
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 180_000);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    for (const key of ["presigned/thumbs/cover.jpg", "presigned/thumbs/frame.jpg"])
      expect((await e.s3.headObject(bucket, key))?.size).toBeGreaterThan(1000);
    expect(JSON.stringify(done)).not.toMatch(SIGNATURE);
    expect(e.stack.logs()).not.toMatch(SIGNATURE);
  });
});
