import type { Job, JobError } from "../../contracts/job";
import type { StepSpec } from "../../contracts/pipelines";
import { TranscriptionResultSchema } from "../../contracts/transcript";
import type { Env } from "../env";
import { getDb } from "../db/client";
import { saveTranscription, TranscriptTooLargeError } from "../transcripts/store";

/**
 * What happens to a step's result: validated against the handler's contract, stored, and turned
 * into the job's `resultSummary` fields. One entry per handler; new pipelines add theirs here.
 */
type Applied = { ok: true; summary: Record<string, unknown> } | { ok: false; error: JobError };
type ResultSink = (env: Env, job: Job, result: Record<string, unknown>) => Promise<Applied>;

const TEXT_PREVIEW_CHARS = 200;

const transcription: ResultSink = async (env, job, raw) => {
  const parsed = TranscriptionResultSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: { code: "processing_failed", message: `runner returned an invalid transcription result: ${parsed.error.issues[0]?.message ?? "invalid"}` } };
  const r = parsed.data;
  const textSourceId = String(job.input["textSourceId"]);
  try {
    await saveTranscription(getDb(env.DB), { id: textSourceId, projectId: job.projectId, ...r, outputKeys: r.outputKeys });
  } catch (err) {
    if (err instanceof TranscriptTooLargeError) return { ok: false, error: { code: "transcript_too_large", message: err.message } };
    throw err;
  }
  const text = r.segments.map((s) => s.text).join(" ").trim();
  return { ok: true, summary: { textSourceId, textPreview: text.slice(0, TEXT_PREVIEW_CHARS), segmentCount: r.segments.length, durationSec: r.durationSec } };
};

/** Test-only handlers (enabled with ALLOW_TEST_PIPELINES) echo their result into the summary. */
const testWork: ResultSink = async (_env, _job, raw) => ({ ok: true, summary: { test: raw } });

const SINKS: Record<string, ResultSink> = {
  transcription,
  "test.work": testWork,
};

export async function applyStepResult(env: Env, job: Job, step: StepSpec, result: Record<string, unknown>): Promise<Applied> {
  const sink = SINKS[step.handler];
  if (!sink) return { ok: false, error: { code: "processing_failed", message: `no result handler for step ${step.name}` } };
  return sink(env, job, result);
}

/**
 * A job that ends without completing leaves its records in a final state too, so nothing reads
 * as "pending" forever (a transcription's transcript becomes `failed`).
 */
export async function applyJobEnded(env: Env, job: Job): Promise<void> {
  if (job.serviceType !== "transcription" || job.status === "completed") return;
  const id = job.input["textSourceId"];
  if (typeof id !== "string") return;
  await env.DB.prepare("UPDATE transcripts SET status = 'failed', updated_at = ? WHERE id = ? AND status = 'pending'").bind(new Date().toISOString(), id).run();
}
