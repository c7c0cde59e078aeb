import type { Job } from "../../../contracts/job";
import { S3Client } from "../../../contracts/s3-client";
import { TranscriptionStoredSchema } from "../../../contracts/services/transcription";
import { TranscriptionResultSchema } from "../../../contracts/transcript";
import type { Env } from "../../env";
import { storageGrantFor } from "../../storage/scratch";
import { reportedKeysRefusal } from "../../storage/object-keys";
import { markTranscriptFailed, saveTranscription, TranscriptTooLargeError } from "../../transcripts/store";
import { blobStore } from "../../storage/blobs";
import { refused } from "../shared/result-checks";
import { validatedSink } from "../shared/step-result";
import { defineWorkerService, runnerBase, type ResultCheck } from "../types";
import { resolveTranscription } from "./resolve";
import { glossaryRoutes, transcriptRoutes } from "./routes";

const TEXT_PREVIEW_CHARS = 200;

/**
 * Puts the empty objects of create's writability probes back at the output keys. Best effort: a
 * failure is logged (the job's outcome stands), and the keys then hold whatever the runner wrote.
 */
async function resetOutputs(env: Env, job: Job, keys: Readonly<Record<string, string>>): Promise<void> {
  try {
    const grant = await storageGrantFor(env, job);
    if (!grant) return;
    const s3 = new S3Client(grant, 10_000);
    await Promise.all(Object.values(keys).map((key) => s3.putObject(grant.bucket, key, new Uint8Array(0), "application/octet-stream", 0)));
  } catch (err) {
    console.error(JSON.stringify({ level: "warn", msg: "could not reset transcription outputs", jobId: job.jobId, error: String(err) }));
  }
}

/** The runner's transcript becomes the transcript record (raw, glossary and segments layers). */
const saveTranscript = validatedSink(TranscriptionResultSchema, "transcription", async ({ env, db, job }, r) => {
  const refused = reportedKeysRefusal(
    "transcription",
    Object.entries(r.outputKeys).map(([name, key]) => [`outputKeys.${name}`, key] as const),
  );
  if (refused) return { ok: false, error: refused };
  const { textSourceId, options } = TranscriptionStoredSchema.parse(job.input);
  // Redaction is the job's (and its project's) decision, never the runner's: a job that asked for it
  // saves nothing unredacted, and a job that did not keeps no second copy of the text.
  const asked = options.redaction ?? null;
  if (asked && !r.redaction)
    return {
      ok: false,
      error: { code: "processing_failed", message: "the job redacts its transcript; the runner's result has no redaction" },
    };
  try {
    await saveTranscription(db, blobStore(env.BLOBS), {
      id: textSourceId,
      projectId: job.projectId,
      ...r,
      outputKeys: r.outputKeys,
      redaction: asked ? (r.redaction ?? null) : null,
      unredactedSegments: asked?.keepUnredacted ? (r.unredactedSegments ?? null) : null,
    });
  } catch (err) {
    if (err instanceof TranscriptTooLargeError) return { ok: false, error: { code: "transcript_too_large", message: err.message } };
    throw err;
  }
  const text = r.segments
    .map((s) => s.text)
    .join(" ")
    .trim();
  return {
    ok: true,
    summary: { textSourceId, textPreview: text.slice(0, TEXT_PREVIEW_CHARS), segmentCount: r.segments.length, durationSec: r.durationSec },
  };
});

/** The four output files are where the job said they would be: its resolved keys, or its presigned URLs. */
const checkTranscript: ResultCheck = ({ job }, raw) => {
  const parsed = TranscriptionResultSchema.safeParse(raw);
  if (!parsed.success) return;
  const input = TranscriptionStoredSchema.parse(job.input);
  const expected: Readonly<Record<string, string>> = input.sourceType === "s3_direct" ? input.resolvedOutputKeys : input.outputUrls;
  for (const [name, key] of Object.entries(parsed.data.outputKeys)) {
    const own = Object.hasOwn(expected, name) ? expected[name] : undefined;
    if (key !== own)
      throw refused(`result.outputKeys.${name} (${key}) is not the job's ${name} output`, {
        path: `result.outputKeys.${name}`,
        issue: "notJobOutput",
      });
  }
};

export const transcriptionWorker = defineWorkerService<"transcription">({
  meter: "transcription_jobs",
  resolve: resolveTranscription,
  policy: (s) => ({
    // The limit a source meets: transcription's own and every service's (runner.maxDurationSec), the smaller.
    maxDurationSec: Math.min(s.transcription.maxDurationSec, s.runner.maxDurationSec),
    supportedSourceLanguages: s.transcription.supportedSourceLanguages,
    supportedExtensions: s.transcription.allowedExtensions,
    speechEngine: s.transcription.speechEngine,
    plans: { free: { monthlyJobs: s.quotas.free.transcription_jobs }, enterprise: { monthlyJobs: s.quotas.enterprise.transcription_jobs } },
  }),
  sinks: { transcription: saveTranscript },
  resultChecks: { transcription: checkTranscript },
  // A transcription that does not complete leaves its transcript `failed` (never `pending` forever)
  // and its four output keys as they were at create: empty, never a half-written set. A presigned
  // job keeps no URL after it ends (worker/jobs/job-hooks.ts), so its outputs are left as the runner wrote them.
  onEnded: async ({ env, db }, job) => {
    if (job.status === "completed") return;
    // Read leniently: an input that is not a transcription's names no transcript or outputs to close, and ending must not throw.
    const input = TranscriptionStoredSchema.safeParse(job.input);
    if (!input.success) return;
    await markTranscriptFailed(db, input.data.textSourceId);
    if (input.data.sourceType === "s3_direct") await resetOutputs(env, job, input.data.resolvedOutputKeys);
  },
  runnerSettings: (s) => ({ ...runnerBase(s), transcription: s.transcription }),
  routes: { "/transcriptions": transcriptRoutes, "/glossary": glossaryRoutes },
});
