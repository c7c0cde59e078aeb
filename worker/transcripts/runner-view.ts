import type { Job } from "../../contracts/job";
import type { TranscriptDocument } from "../../contracts/runner-protocol";
import type { Segment, VisualChunk } from "../../contracts/transcript";
import type { Db } from "../db/client";
import { ApiError, notFound } from "../errors";
import { findTranscript } from "./lookup";
import type { BlobStore } from "../storage/blobs";
import { readLayer } from "./layers";
import { redactedSpansOf } from "./redaction";

/** The transcript ids a job names in its input: the only ones its runner steps may read. */
export function transcriptsNamedBy(job: Job): string[] {
  const one = job.input["textSourceId"];
  const many = job.input["textSourceIds"];
  return [
    ...(typeof one === "string" ? [one] : []),
    ...(Array.isArray(many) ? many.filter((v): v is string => typeof v === "string") : []),
  ];
}

/**
 * A transcript as a runner step reads it: the current `segments` layer (what an edit changed is what
 * gets summarised and indexed) without word timings, which text services do not use and which make
 * a long transcript several times larger, plus the visual chunks of its transcription.
 */
export async function transcriptForRunner(db: Db, blobs: BlobStore, job: Job, textSourceId: string): Promise<TranscriptDocument> {
  if (!transcriptsNamedBy(job).includes(textSourceId))
    throw new ApiError("protocolError", `job ${job.jobId} does not name transcript ${textSourceId}`);
  const t = await findTranscript(db, job.projectId, textSourceId);
  if (!t || t.status !== "completed") throw notFound(`transcription not found: ${textSourceId}`);
  const [segments, visualChunks] = await Promise.all([
    readLayer<Segment[]>(db, blobs, t, "segments").then((s) => s ?? []),
    readLayer<VisualChunk[]>(db, blobs, t, "visual").then((v) => v ?? []),
  ]);
  return {
    textSourceId: t.id,
    language: t.language ?? "en",
    durationSec: t.durationSec ?? segments.at(-1)?.end ?? 0,
    revision: t.revision,
    segments: segments.map(({ words: _words, ...s }) => s),
    speakers: t.speakers,
    visualChunks,
    redactedSpans: redactedSpansOf(t.redaction),
  };
}
