import { env } from "cloudflare:workers";
import { newId } from "../../../contracts/ids";
import type { Job } from "../../../contracts/job";
import type { TranslationSave, TranslationSource } from "../../../contracts/services/translation";
import type { Segment } from "../../../contracts/transcript";
import { getDb } from "../../../worker/db/client";
import { transcripts } from "../../../worker/db/schema";
import { blobStore, type BlobStore } from "../../../worker/storage/blobs";
import { saveTranscription } from "../../../worker/transcripts/store";
import type { TranscriptionResult } from "../../../contracts/transcript";
import { call } from "./api";
import { speakerList } from "../../../contracts/speakers";
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
  return completeTranscription(t, job, transcriptionResult(job, segments, language));
}

/**
 * A completed diarized transcript: one 2-second segment per entry of `speakers`, spoken by that
 * label, its two words labelled too, and the runner's `speakers`/`diarization` as the handler sends them.
 */
export async function diarizedTranscript(t: Tenant, speakers: readonly string[]): Promise<CompletedTranscript> {
  const job = await submitTranscription(t);
  const base = transcriptionResult(job, speakers.length);
  const segments = base.segments.map((s, i) => ({
    ...s,
    speaker: speakers[i]!,
    words: [
      { word: "segment", start: s.start, end: s.start + 1, speaker: speakers[i]! },
      { word: String(i), start: s.start + 1, end: s.end, speaker: speakers[i]! },
    ],
  }));
  return completeTranscription(t, job, {
    ...base,
    segments,
    speakers: speakerList(segments),
    diarization: { engine: "local-mfcc", model: "test-diarizer" },
  });
}

export async function completeTranscription(t: Tenant, job: Job, result: TranscriptionResult): Promise<CompletedTranscript> {
  const task = await fakeRunner.leaseWhenReady(job.jobId, TRANSCRIPTION_HANDLER);
  const res = await fakeRunner.complete(task, result as unknown as Record<string, unknown>);
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

/** A pending transcript row of the project, as POST /v1/jobs leaves it. */
export async function pendingTranscriptRow(projectId: string): Promise<string> {
  const id = newId("transcript");
  const now = new Date().toISOString();
  await getDb(env.DB)
    .insert(transcripts)
    .values({ id, projectId, jobId: `job_${id}`, status: "pending", createdAt: now, updatedAt: now });
  return id;
}

/** Saves the transcription of the pending row `id` as the transcription sink saves it, through `blobs`. */
export async function saveTranscriptRow(
  projectId: string,
  id: string,
  segments: Segment[],
  blobs: BlobStore = blobStore(env.BLOBS),
): Promise<void> {
  await saveTranscription(getDb(env.DB), blobs, {
    id,
    projectId,
    language: "en",
    durationSec: 4,
    engine: "test",
    model: "test",
    segments,
    visualChunks: [],
    outputKeys: {},
  });
}

/** What a translation runner saves: the source's segments with their texts replaced by `texts`. */
export function translationSaveBody(
  source: TranslationSource,
  job: Job,
  texts = source.segments.map((s) => `[es] ${s.text}`),
): TranslationSave {
  return {
    translationBackend: "apertium",
    model: "apertium:eng-spa",
    sourceLanguage: String(job.input["sourceLanguage"]),
    targetLanguage: String(job.input["targetLanguage"]),
    transcriptRevision: source.revision,
    durationSec: source.durationSec,
    segments: source.segments.map((s, i) => ({ ...s, text: texts[i]!, sourceText: s.text })),
    outputKeys: job.input["resolvedOutputKeys"] as TranslationSave["outputKeys"],
    glossary: { termsProtected: 0, missing: [] },
    timing: { translateSec: 0.01, segmentsPerSec: 300 },
  };
}
