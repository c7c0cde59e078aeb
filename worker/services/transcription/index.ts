import { TranscriptionResultSchema } from "../../../contracts/transcript";
import { PLAN_LIMITS } from "../../jobs/credits";
import { markTranscriptFailed, saveTranscription, TranscriptTooLargeError } from "../../transcripts/store";
import { defineWorkerService, runnerBase, type ResultSink } from "../types";
import { resolveTranscription } from "./resolve";
import { glossaryRoutes, transcriptRoutes } from "./routes";

const TEXT_PREVIEW_CHARS = 200;

/** The runner's transcript becomes the transcript record (raw, glossary and segments layers). */
const saveTranscript: ResultSink = async ({ db, job }, raw) => {
  const parsed = TranscriptionResultSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, error: { code: "processing_failed", message: `runner returned an invalid transcription result: ${parsed.error.issues[0]?.message ?? "invalid"}` } };
  const r = parsed.data;
  const textSourceId = String(job.input["textSourceId"]);
  try {
    await saveTranscription(db, { id: textSourceId, projectId: job.projectId, ...r, outputKeys: r.outputKeys });
  } catch (err) {
    if (err instanceof TranscriptTooLargeError) return { ok: false, error: { code: "transcript_too_large", message: err.message } };
    throw err;
  }
  const text = r.segments
    .map((s) => s.text)
    .join(" ")
    .trim();
  return { ok: true, summary: { textSourceId, textPreview: text.slice(0, TEXT_PREVIEW_CHARS), segmentCount: r.segments.length, durationSec: r.durationSec } };
};

export const transcriptionWorker = defineWorkerService<"transcription">({
  meter: "transcription_jobs",
  resolve: resolveTranscription,
  policy: (s) => ({
    maxDurationSec: s.transcription.maxDurationSec,
    supportedSourceLanguages: s.transcription.supportedSourceLanguages,
    supportedExtensions: s.transcription.allowedExtensions,
    speechEngine: s.transcription.speechEngine,
    plans: { free: { monthlyJobs: PLAN_LIMITS.free["transcription_jobs"] ?? null }, enterprise: { monthlyJobs: null } },
  }),
  sinks: { transcription: saveTranscript },
  // A transcription that does not complete leaves its transcript `failed`, never `pending` forever.
  onEnded: async ({ db }, job) => {
    if (job.status !== "completed" && typeof job.input["textSourceId"] === "string") await markTranscriptFailed(db, job.input["textSourceId"]);
  },
  runnerSettings: (s) => ({ ...runnerBase(s), transcription: s.transcription }),
  routes: { "/transcriptions": transcriptRoutes, "/glossary": glossaryRoutes },
});
