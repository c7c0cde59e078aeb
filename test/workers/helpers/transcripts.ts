import type { Job } from "../../../contracts/job";
import type { TranscriptionResult } from "../../../contracts/transcript";
import { call } from "./api";
import { fakeRunner, submitTranscription, waitForStatus } from "./jobs";
import type { Tenant } from "./tenant";

/** The real transcription handler's name: leasing with it never picks up test-pipeline work. */
export const TRANSCRIPTION_HANDLER = ["transcription"];

/** A valid TranscriptionResult (contracts/transcript.ts): `segmentCount` segments, or one 2-second segment per text. */
export function transcriptionResult(job: Job, segmentCount: number | readonly string[], language = "en"): TranscriptionResult {
  const texts = typeof segmentCount === "number" ? Array.from({ length: segmentCount }, (_, id) => `segment number ${id}`) : segmentCount;
  const segments = texts.map((text, id) => ({ id, start: id * 2, end: id * 2 + 2, text }));
  return {
    language,
    durationSec: segments.length * 2,
    engine: "test-engine",
    model: "test-model",
    segments,
    visualChunks: [],
    outputKeys: job.input["resolvedOutputKeys"] as TranscriptionResult["outputKeys"],
  };
}

export interface CompletedTranscript {
  jobId: string;
  textSourceId: string;
}

/**
 * Runs a transcription job to `completed` through the real `transcription` pipeline: the test
 * plays the runner, leasing the task and reporting a result with `segmentCount` segments.
 * Needs the real pipeline, so the file must not register a test pipeline for `transcription`.
 */
export async function completedTranscript(t: Tenant, segments: number | readonly string[], language = "en"): Promise<CompletedTranscript> {
  const job = await submitTranscription(t);
  const task = await fakeRunner.leaseWhenReady(job.jobId, TRANSCRIPTION_HANDLER);
  const res = await fakeRunner.complete(task, transcriptionResult(job, segments, language) as unknown as Record<string, unknown>);
  if (res.status !== 200) throw new Error(`complete failed ${res.status}: ${JSON.stringify(res.body)}`);
  await waitForStatus(t, job.jobId, "completed");
  return { jobId: job.jobId, textSourceId: String(job.input["textSourceId"]) };
}

/** Usage meters of the tenant's workspace for the current billing period, by meter name. */
export async function usage(t: Tenant): Promise<Record<string, number>> {
  const res = await call<{ usage: { meters: Array<{ meter: string; used: number }> } }>("GET", "/v1/workspace", { key: t.projectKey });
  if (res.status !== 200) throw new Error(`workspace failed ${res.status}: ${JSON.stringify(res.body)}`);
  return Object.fromEntries(res.body.data.usage.meters.map((m) => [m.meter, m.used]));
}
