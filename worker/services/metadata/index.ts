import { Hono } from "hono";
import { newId } from "../../../contracts/ids";
import {
  MetadataStepResultSchema,
  MetadataStoredSchema,
  saveMetadataStep,
  type MetadataStepResult,
} from "../../../contracts/services/metadata";
import { StepFailure } from "../../../contracts/step-failure";
import { principalOf, projectOf } from "../../auth/middleware";
import { getDb } from "../../db/client";
import type { AppBindings } from "../../env";
import { notFound } from "../../errors";
import { ok } from "../../http/envelope";
import { requireSegmentedTranscript } from "../../transcripts/lookup";
import { ownedTranscript } from "../../transcripts/store";
import { staleness } from "../../transcripts/staleness";
import { validatedSink } from "../shared/step-result";
import { defineWorkerService, type WorkerStepHandler } from "../types";
import { metadataOf, saveMetadataRecord } from "./store";
import { nowIso } from "../../../contracts/clock";

/**
 * Metadata, the Worker's side: create checks, saving the runner's draft on the transcript
 * (`save_metadata`, an in-Worker step), and `GET /v1/transcriptions/{id}/metadata`.
 *
 * The record belongs to the transcript, as the spec says (its object in R2, the transcript row
 * pointing at it: store.ts); a new run replaces
 * it with a new `mdt_` id (the job's id, assigned at create, so a redelivered save writes the same
 * record).
 */

export interface MetadataRecord extends Omit<MetadataStepResult, "segmentCount" | "durationSec"> {
  metadataId: string;
  textSourceId: string;
  jobId: string;
  createdAt: string;
}

const save: WorkerStepHandler = async ({ env, job, outputs, report }) => {
  const draft = MetadataStepResultSchema.parse(outputs["generate"]);
  const { textSourceId, metadataId } = MetadataStoredSchema.parse(job.input);
  const record: MetadataRecord = {
    metadataId,
    textSourceId,
    jobId: job.jobId,
    title: draft.title,
    description: draft.description,
    keywords: draft.keywords,
    categories: draft.categories,
    chapters: draft.chapters,
    generatedBy: draft.generatedBy,
    transcriptRevision: draft.transcriptRevision,
    createdAt: nowIso(),
  };
  await report.stage(
    "save_metadata",
    async () => {
      const saved = await saveMetadataRecord(env, getDb(env.DB), job.projectId, textSourceId, { ...record }, record.createdAt);
      if (!saved) throw new StepFailure("source_not_found", `transcription not found: ${textSourceId}`, false);
      return { metadataId: record.metadataId, chapters: record.chapters.length, categories: record.categories.length };
    },
    (details) => details,
  );
  return {
    textSourceId,
    metadataId: record.metadataId,
    title: record.title,
    chapterCount: record.chapters.length,
    generated: record.generatedBy,
  };
};

const metadataRoutes = new Hono<AppBindings>().get("/:transcriptionId/metadata", async (c) => {
  const p = principalOf(c);
  const t = await ownedTranscript(getDb(c.env.DB), projectOf(p), c.req.param("transcriptionId"));
  const metadata = await metadataOf(c.env, t);
  if (!metadata)
    throw notFound(`no metadata for transcription ${t.id} yet; create a metadata job for it`, [
      { path: "transcriptionId", issue: `notFound:${t.id}` },
    ]);
  const madeFrom = typeof metadata["transcriptRevision"] === "number" ? metadata["transcriptRevision"] : null;
  return ok(c, { transcriptionId: t.id, ...metadata, ...staleness(madeFrom, t.revision) });
});

export const metadataWorker = defineWorkerService<"metadata">({
  meter: "metadata_credits",
  resolve: async ({ db, projectId }, input) => {
    await requireSegmentedTranscript(db, projectId, input.textSourceId, "input.textSourceId");
    return { input: { ...input, metadataId: newId("metadata") }, credits: 1 };
  },
  sinks: {
    // The draft goes to the save step as its input; the summary comes from the save.
    metadata: validatedSink(MetadataStepResultSchema, "metadata", async (_ctx, draft) => ({ ok: true, summary: {}, output: draft })),
    "metadata.save": validatedSink(saveMetadataStep.result, "metadata.save", async (_ctx, saved) => ({ ok: true, summary: saved })),
  },
  workerSteps: { "metadata.save": save },
  runnerSettings: (s) => ({ runner: s.runner, understanding: s.understanding }),
  routes: { "/transcriptions": metadataRoutes },
});
