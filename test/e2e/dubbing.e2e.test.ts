import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { probe } from "../../gpu-runner/media/ffmpeg";
import { startE2E, transcribedSpeech, type E2E } from "../support/e2e-stack";

/**
 * From a transcribed video to a dubbed video in the bucket, through the whole local stack: a real
 * transcription of LibriVox speech, a translation into Spanish by Apertium (through the apertium-apy
 * server the stack starts), then a dubbing with the local engines on a real gpu-runner, its video
 * carrying the provenance note; and a recorded consent checked by the runner (issue 25).
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
  /** The dubbing the dubbing test made, read by the provenance test after it. */
  let dubbed: { dubbingId: string; video: string } | undefined;

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
    dubbed = { dubbingId, video: rec.artifacts["video"]! };
  }, 360_000);

  it("dubbing: the dubbed video names the service, the dubbing, synthetic speech and the engines in its metadata", async () => {
    if (!dubbed) throw new Error("the dubbing test made no dubbing");
    const tags = await formatTags(dubbed.video);
    expect(tags).toMatchObject({
      media_jobs_service: "media-jobs",
      media_jobs_dubbing_id: dubbed.dubbingId,
      media_jobs_synthetic_speech: "true",
      media_jobs_speech_engine: "local",
      media_jobs_translation_engine: "apertium",
    });
  }, 60_000);

  it("regenerate after one segment's edit: the old dub reads stale, the new one speaks only the changed segment again", async () => {
    if (!dubbed) throw new Error("the dubbing test made no dubbing");
    const t = await e.api<{ revision: number; segments: Array<{ id: number; text: string }> }>(
      "GET",
      `/v1/transcriptions/${textSourceId}?layers=segments`,
    );
    const edited = t.segments[1]!;
    await e.api("PATCH", `/v1/transcriptions/${textSourceId}/segments`, {
      revision: t.revision,
      segments: [{ id: edited.id, text: "the bread rose overnight" }],
    });
    expect(await e.api<{ stale: boolean }>("GET", `/v1/dubbings/${dubbed.dubbingId}`)).toMatchObject({ stale: true });
    const regen = await e.api<{ jobs: Array<{ job: Job }> }>("POST", `/v1/transcriptions/${textSourceId}/regenerate`, {
      outputs: { dubbings: [dubbed.dubbingId] },
    });
    const job = regen.jobs[0]!.job;
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 300_000);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    const rec = await e.api<{
      stale: boolean;
      regenerated: { mode: string; fromDubbingId: string; segmentsSynthesized: number[]; segmentsReused: number[] };
    }>("GET", `/v1/dubbings/${String(done.resultSummary?.["dubbingId"])}`);
    expect(rec.stale).toBe(false);
    expect(rec.regenerated).toMatchObject({ mode: "partial", fromDubbingId: dubbed.dubbingId, segmentsSynthesized: [edited.id] });
    expect(rec.regenerated.segmentsReused.length).toBe(t.segments.length - 1);
  }, 420_000);
});

describe("a recorded consent end to end", () => {
  it("the runner checks a recording of the phrase against the sample's voice: another voice is refused, saying so", async () => {
    const phrase = await e.api<{ phraseId: string; text: string }>("POST", "/v1/voice-consents/phrases", { speakerName: "Ada" });
    const dir = await mkdtemp(path.join(os.tmpdir(), "e2e-consent-"));
    const wav = path.join(dir, "ada.wav");
    await promisify(execFile)("espeak-ng", ["-v", "en-us+klatt2", "-s", "140", "-w", wav, phrase.text]);
    await e.s3.putObject(e.tenant.bucket, "e2e/consent/ada.wav", await readFile(wav), "audio/wav");
    const where = { connectionId: e.tenant.connectionId, bucket: e.tenant.bucket };
    const created = await e.api<{ consentId: string; status: string; job: Job }>("POST", "/v1/voice-consents", {
      kind: "recording",
      subject: { ...where, key: "e2e/speech.mp4" },
      phraseId: phrase.phraseId,
      recording: { ...where, key: "e2e/consent/ada.wav" },
    });
    expect(created.status).toBe("pending");
    const job = await e.waitForJob(created.job.jobId, ["completed", "failed"], 180_000);
    expect(job.status, JSON.stringify(job.error)).toBe("completed");
    const consent = await e.api<{ status: string; reason: string; check: { voiceDistance: number } }>(
      "GET",
      `/v1/voice-consents/${created.consentId}`,
    );
    // eSpeak NG reading the phrase is not the LibriVox reader of the sample.
    expect(consent.status).toBe("refused");
    expect(consent.check.voiceDistance).toBeGreaterThan(1.2);
    expect(consent.reason).toContain("not the subject's voice");
  }, 240_000);
});

/** The container's tags as ffprobe reads them. */
async function formatTags(key: string): Promise<Record<string, string>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "e2e-tags-"));
  const file = path.join(dir, path.basename(key));
  await writeFile(file, Buffer.from(await (await e.s3.getObject(e.tenant.bucket, key)).arrayBuffer()));
  const { stdout } = await promisify(execFile)("ffprobe", ["-v", "error", "-show_format", "-of", "json", file]);
  return (JSON.parse(stdout) as { format: { tags?: Record<string, string> } }).format.tags ?? {};
}
