import { readFile } from "node:fs/promises";
import { parseSync } from "subtitle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { startE2E, transcribedSpeech, type E2E } from "../support/e2e-stack";
import { garbageFile, overLimitFile, speechVideo } from "../support/media-fixtures";
import { twoVoiceVideo } from "../support/dubbing-fixtures";
import { piiSpeechVideo } from "../support/pii-speech";
import { MediaJobs, type TranscriptRecord } from "../../sdk/client";
import { apiCall } from "../../scripts/lib/api-client";
import { strFromU8, unzipSync } from "fflate";

/**
 * Transcription through the whole local stack: the public API, the JobDO, the queue, a real
 * gpu-runner with ffmpeg and PocketSphinx, and the local S3 bucket.
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E({ runners: 1, runnerConcurrency: 2 });
});
afterAll(async () => e?.close());

async function upload(file: string, key: string): Promise<string> {
  await e.s3.putObject(e.tenant.bucket, key, await readFile(file), "video/mp4");
  return key;
}

const submit = (sourceKey: string) =>
  e.api<Job>("POST", "/v1/jobs", {
    serviceType: "transcription",
    input: { sourceType: "s3_direct", connectionId: e.tenant.connectionId, bucket: e.tenant.bucket, sourceKey },
  });

/** The first test's job: the deletion test deletes what it made rather than transcribe another file. */
let transcribed: Job | null = null;

describe("transcription end to end", () => {
  it("a video in the bucket becomes four output files and a transcript readable through the API", async () => {
    const job = await submit(await upload(await speechVideo(), "e2e/speech.mp4"));
    transcribed = job;
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 180_000);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");

    const summary = done.resultSummary as { textSourceId: string; segmentCount: number; durationSec: number; textPreview: string };
    expect(summary.textSourceId).toBe(job.input["textSourceId"]);
    expect(summary.segmentCount).toBeGreaterThan(0);
    expect(summary.durationSec).toBeGreaterThan(25);

    const keys = job.input["resolvedOutputKeys"] as Record<"fullText" | "segments" | "srt" | "vtt", string>;
    const text = await (await e.s3.getObject(e.tenant.bucket, keys.fullText)).text();
    expect(text).toMatch(/consider how much there might be/);
    const doc = JSON.parse(await (await e.s3.getObject(e.tenant.bucket, keys.segments)).text()) as { engine: string; segments: unknown[] };
    expect(doc.segments.length).toBe(summary.segmentCount);
    expect(doc.engine).toBe("local-pocketsphinx");
    const srt = parseSync(await (await e.s3.getObject(e.tenant.bucket, keys.srt)).text()).filter((n) => n.type === "cue");
    const vtt = parseSync(await (await e.s3.getObject(e.tenant.bucket, keys.vtt)).text()).filter((n) => n.type === "cue");
    expect(srt.length).toBeGreaterThan(0);
    expect(vtt.length).toBe(srt.length);

    const transcript = await e.api<{
      engine: string;
      model: string;
      language: string;
      revision: number;
      segments: Array<{ text: string }>;
      raw: unknown[];
      glossary: unknown[];
      visualChunks: unknown[];
    }>("GET", `/v1/transcriptions/${summary.textSourceId}`);
    expect(transcript.engine).toBe("local-pocketsphinx");
    expect(transcript.model).toBeTruthy();
    expect(transcript.language).toBe("en");
    expect(transcript.revision).toBe(1);
    expect(transcript.raw).toHaveLength(summary.segmentCount);
    expect(transcript.glossary).toHaveLength(summary.segmentCount);
    expect(transcript.visualChunks.length).toBeGreaterThanOrEqual(2);
  });

  it("deleting the transcript with deleteOutputs removes its four files from the bucket and records who did it", async () => {
    if (!transcribed) throw new Error("needs the first test's transcript");
    const textSourceId = String(transcribed.input["textSourceId"]);
    const keys = Object.values(transcribed.input["resolvedOutputKeys"] as Record<string, string>);
    const answer = await e.api<{ deleted: boolean; auditEventId: string; outputs: { deleted: number; kept: unknown[] } }>(
      "DELETE",
      `/v1/transcriptions/${textSourceId}?deleteOutputs=true`,
    );
    expect(answer.outputs).toEqual({ deleted: keys.length, kept: [] });
    for (const key of keys) expect(await e.s3.headObject(e.tenant.bucket, key), key).toBeNull();
    expect(
      (
        await fetch(`${e.stack.apiBaseUrl}/v1/transcriptions/${textSourceId}`, {
          headers: { authorization: `Bearer ${e.tenant.projectKey}` },
        })
      ).status,
    ).toBe(404);
    const entry = await apiCall<{ state: string; subject: { id: string } }>(
      e.stack.apiBaseUrl,
      "GET",
      `/v1/audit-log/${answer.auditEventId}`,
      e.tenant.workspaceKey,
      undefined,
      {},
      e.checkResponse,
    );
    expect(entry.data).toMatchObject({ state: "completed", subject: { id: textSourceId } });
  });

  it("a transcription with options.redaction writes no name into its files and keeps the text as heard behind its own permission", async () => {
    const job = await e.api<Job>("POST", "/v1/jobs", {
      serviceType: "transcription",
      input: {
        sourceType: "s3_direct",
        connectionId: e.tenant.connectionId,
        bucket: e.tenant.bucket,
        sourceKey: await upload(await piiSpeechVideo(), "e2e/pii-speech.mp4"),
        options: { redaction: { entities: ["PERSON"] } },
      },
    });
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 180_000);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    const keys = job.input["resolvedOutputKeys"] as Record<"fullText" | "segments" | "srt" | "vtt", string>;
    for (const key of Object.values(keys)) {
      const text = await (await e.s3.getObject(e.tenant.bucket, key)).text();
      expect(text, key).not.toMatch(/john smith/i);
    }
    expect(await (await e.s3.getObject(e.tenant.bucket, keys.fullText)).text()).toContain("[PERSON]");
    const id = String(job.input["textSourceId"]);
    const t = await e.api<{ redaction: { counts: Record<string, number> } | null }>("GET", `/v1/transcriptions/${id}?layers=segments`);
    expect(t.redaction?.counts["PERSON"]).toBeGreaterThanOrEqual(1);
    const granted = await apiCall<{ secret: string }>(
      e.stack.apiBaseUrl,
      "POST",
      `/v1/projects/${e.tenant.projectId}/api-keys`,
      e.tenant.workspaceKey,
      { name: "auditor", permissions: ["transcript:read_unredacted"] },
      {},
      e.checkResponse,
    );
    const heard = await apiCall<{ segments: Array<{ text: string }> }>(
      e.stack.apiBaseUrl,
      "GET",
      `/v1/transcriptions/${id}/unredacted`,
      granted.data.secret,
      undefined,
      {},
      e.checkResponse,
    );
    expect(heard.data.segments.map((s) => s.text).join(" ")).toMatch(/john smith/i);
  });

  it("an interview with two speakers comes out labelled in the transcript, SRT, VTT and DOCX, and a rename reaches the next export", async () => {
    const job = await submit(await upload((await twoVoiceVideo()).video, "e2e/interview.mp4"));
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 240_000);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    const id = String(job.input["textSourceId"]);

    const transcript = await e.api<TranscriptRecord>("GET", `/v1/transcriptions/${id}`);
    expect(transcript.speakers.map((s) => s.label)).toEqual(["SPEAKER_00", "SPEAKER_01"]);
    expect(transcript.diarization?.engine).toBe("local-mfcc");
    expect(new Set(transcript.segments!.map((s) => s.speaker))).toEqual(new Set(["SPEAKER_00", "SPEAKER_01"]));

    const keys = job.input["resolvedOutputKeys"] as Record<"srt" | "vtt", string>;
    const srt = await (await e.s3.getObject(e.tenant.bucket, keys.srt)).text();
    const vtt = await (await e.s3.getObject(e.tenant.bucket, keys.vtt)).text();
    for (const label of ["SPEAKER_00", "SPEAKER_01"]) {
      expect(srt).toContain(`${label}: `);
      expect(vtt).toContain(`<v ${label}>`);
    }

    await e.api("PATCH", `/v1/transcriptions/${id}/speakers`, { revision: transcript.revision, names: { SPEAKER_01: "Ada Lovelace" } });
    const mj = new MediaJobs({ baseUrl: e.stack.apiBaseUrl, apiKey: e.tenant.projectKey });
    const docx = await mj.transcriptions.export(id, "docx");
    expect(docx.fileName).toBe("interview.docx");
    const document = strFromU8(unzipSync(docx.bytes)["word/document.xml"]!);
    expect(document).toContain("Ada Lovelace");
    expect(document).toContain("SPEAKER_00");
  });

  it("an edit leaves the bucket's files stale, and regenerating them writes the edit there", async () => {
    const id = await transcribedSpeech(e);
    type Files = { revision: number; outputKeys: Record<"fullText" | "srt", string>; outputKeysStale: boolean; outputKeysRevision: number };
    const before = await e.api<Files & { segments: Array<{ id: number }> }>("GET", `/v1/transcriptions/${id}?layers=segments`);
    expect(before.outputKeysStale).toBe(false);
    // Short enough to stay on one subtitle line (42 columns), speaker prefix included.
    const edit = "An edited first line.";
    await e.api("PATCH", `/v1/transcriptions/${id}/segments`, {
      revision: before.revision,
      segments: [{ id: before.segments[0]!.id, text: edit }],
    });
    expect((await e.api<Files>("GET", `/v1/transcriptions/${id}?layers=segments`)).outputKeysStale).toBe(true);

    const regenerated = await e.api<{ jobs: Array<{ output: string; job: Job }> }>("POST", `/v1/transcriptions/${id}/regenerate`, {
      outputs: { files: "stale" },
    });
    const [files] = regenerated.jobs;
    expect(files?.job.serviceType).toBe("transcript_files");
    const done = await e.waitForJob(files!.job.jobId, ["completed", "failed"], 60_000);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    const after = await e.api<Files>("GET", `/v1/transcriptions/${id}?layers=segments`);
    expect([after.outputKeysStale, after.outputKeysRevision]).toEqual([false, before.revision + 1]);
    for (const key of [after.outputKeys.fullText, after.outputKeys.srt])
      expect(await (await e.s3.getObject(e.tenant.bucket, key)).text()).toContain(edit);
  });

  it("a source longer than 3600 s fails with duration_exceeded, naming both durations, without retries", async () => {
    const job = await submit(await upload(await overLimitFile(), "e2e/over-limit.mp4"));
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 120_000);
    expect(done.status).toBe("failed");
    expect(done.error?.code).toBe("duration_exceeded");
    expect(done.error?.message).toMatch(/3601(\.\d+)? s.*3600 s/);
    expect(done.attemptCount).toBe(0);
  });

  it("a garbage file fails clearly and is not retried", async () => {
    const job = await submit(await upload(await garbageFile(), "e2e/garbage.mp4"));
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 120_000);
    expect(done.status).toBe("failed");
    expect(done.error?.code).toBe("unsupported_media");
    expect(done.attemptCount).toBe(0);
  });
});
