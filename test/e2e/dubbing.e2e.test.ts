import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { probe } from "../../gpu-runner/media/ffmpeg";
import { startE2E, transcribedSpeech, type E2E } from "../support/e2e-stack";

/**
 * From a transcribed video to a dubbed video in the bucket, through the whole local stack: a real
 * transcription of LibriVox speech, a translation into Spanish by Apertium (through the apertium-apy
 * server the stack starts), then a dubbing with the local engines on a real gpu-runner.
 */
let e: E2E;
let textSourceId: string;

beforeAll(async () => {
  e = await startE2E({ runners: 1 });
  textSourceId = await transcribedSpeech(e);
}, 240_000);
afterAll(async () => e?.close());

async function run(serviceType: string, input: Record<string, unknown>): Promise<Job> {
  const job = await e.api<Job>("POST", "/v1/jobs", { serviceType, input });
  const done = await e.waitForJob(job.jobId, ["completed", "failed"], 300_000);
  expect(done.status, JSON.stringify(done.error)).toBe("completed");
  return done;
}

async function probeObject(key: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "e2e-dub-"));
  const file = path.join(dir, path.basename(key));
  await writeFile(file, Buffer.from(await (await e.s3.getObject(e.tenant.bucket, key)).arrayBuffer()));
  return probe(file);
}

describe("translation and dubbing end to end", () => {
  let translationId: string;

  it("translation: Apertium keeps every segment's timing and writes Spanish subtitles to the bucket", async () => {
    const done = await run("translation", { textSourceId, targetLanguage: "es" });
    translationId = String(done.resultSummary?.["translationId"]);
    expect(done.resultSummary).toMatchObject({
      textSourceId,
      languageKey: "es",
      translationBackend: "apertium",
      model: "apertium:eng-spa",
    });
    const t = await e.api<{ segments: Array<{ id: number; start: number; end: number }> }>(
      "GET",
      `/v1/transcriptions/${textSourceId}?layers=segments`,
    );
    const trl = await e.api<{ segments: Array<{ id: number; start: number; end: number; text: string }>; outputKeys: { srt: string } }>(
      "GET",
      `/v1/translations/${translationId}`,
    );
    expect(trl.segments.map(({ id, start, end }) => ({ id, start, end }))).toEqual(
      t.segments.map(({ id, start, end }) => ({ id, start, end })),
    );
    const srt = await (await e.s3.getObject(e.tenant.bucket, trl.outputKeys.srt)).text();
    expect(srt).toContain("-->");
  }, 300_000);

  it("dubbing: a dubbed video as long as the source, the picture copied, every artifact playable", async () => {
    const done = await run("dubbing", { transcriptionId: textSourceId, targetLanguage: "es", translationId });
    const dubbingId = String(done.resultSummary?.["dubbingId"]);
    const rec = await e.api<{
      artifacts: Record<string, string>;
      speakers: Array<{ status: string }>;
      sync: { maxStartOffsetSec: number; maxOverrunRatio: number; durationDeltaSec: number };
    }>("GET", `/v1/dubbings/${dubbingId}`);
    expect(Object.keys(rec.artifacts).sort()).toEqual(["background", "mix", "rawAudio", "speech", "video", "vocals"]);
    expect(rec.speakers.every((s) => s.status === "voiced")).toBe(true);
    expect(rec.sync.maxStartOffsetSec).toBeLessThanOrEqual(0.1);
    expect(rec.sync.maxOverrunRatio).toBeLessThanOrEqual(0.05);
    const video = await probeObject(rec.artifacts["video"]!);
    expect(video.hasVideo && video.hasAudio).toBe(true);
    const source = await probeObject("e2e/speech.mp4");
    expect(Math.abs(video.durationSec - source.durationSec)).toBeLessThanOrEqual(0.1);
    expect(done.resultSummary).toMatchObject({ dubbingId, transcriptionId: textSourceId, translationId, languageKey: "es" });
  }, 360_000);
});
