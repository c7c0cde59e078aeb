import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { newId } from "../../../contracts/ids";
import { SummarizationStepResultSchema, SummarizationStoredSchema } from "../../../contracts/services/summarization";
import type { Settings } from "../../../contracts/settings";
import { SHORT_SYNOPSIS_PREVIEW_CHARS } from "../../../contracts/understanding";
import { principalOf, projectOf } from "../../auth/middleware";
import { getDb } from "../../db/client";
import { jobs, summarizations } from "../../db/schema";
import type { AppBindings } from "../../env";
import { notFound, validationError } from "../../errors";
import { ok } from "../../http/envelope";
import { findTranscript, requireRedactedUnderPolicy, type TranscriptRow } from "../../transcripts/lookup";
import { currentRevisionOf, staleness } from "../../transcripts/staleness";
import { validatedSink } from "../shared/step-result";
import { defineWorkerService } from "../types";
import { saveSummaryResult, summaryResultOf } from "./store";
import { nowIso } from "../../../contracts/clock";

/**
 * Summarization, the Worker's side: `textSourceJobId` resolved from a `job_` or a `txt_` with the
 * spec's messages, the `sum_` record (created `pending` with the job, holding the platform's synthesis
 * configuration at create), the runner's draft saved on it, and `GET /v1/summarizations/{id}`.
 */

/** `input.config`: the platform settings the synthesis runs with, as they were at create (read-only). */
function synthesisConfig(s: Settings) {
  return { textEngine: s.understanding.textEngine, textModel: s.understanding.textModel, visualChunks: true };
}

const saveSummary = validatedSink(SummarizationStepResultSchema, "summarization", async ({ env, db, job }, r) => {
  const id = SummarizationStoredSchema.parse(job.input).summarizationId;
  await saveSummaryResult(env, db, job.projectId, id, r);
  return { ok: true, summary: { summarizationId: id, shortSynopsisPreview: r.shortSynopsis.slice(0, SHORT_SYNOPSIS_PREVIEW_CHARS) } };
});

const summarizationRoutes = new Hono<AppBindings>().get("/:summarizationId", async (c) => {
  const p = principalOf(c);
  const id = c.req.param("summarizationId");
  const row = await getDb(c.env.DB)
    .select()
    .from(summarizations)
    .where(and(eq(summarizations.id, id), eq(summarizations.projectId, projectOf(p))))
    .get();
  if (!row) throw notFound(`summarization not found: ${id}`, [{ path: "summarizationId", issue: `notFound:${id}` }]);
  const [stored, currentRevision] = await Promise.all([
    summaryResultOf(c.env, row),
    currentRevisionOf(getDb(c.env.DB), row.projectId, row.textSourceId),
  ]);
  const r = stored ? SummarizationStepResultSchema.parse(stored) : null;
  return ok(c, {
    summarizationId: row.id,
    projectId: row.projectId,
    jobId: row.jobId,
    textSourceId: row.textSourceId,
    status: row.status,
    config: row.config,
    shortSynopsis: r?.shortSynopsis ?? null,
    shortSynopsisPreview: r ? r.shortSynopsis.slice(0, SHORT_SYNOPSIS_PREVIEW_CHARS) : null,
    longSynopsis: r?.longSynopsis ?? null,
    seoDescriptions: r?.seoDescriptions ?? null,
    socialHooks: r?.socialHooks ?? null,
    keywords: r?.keywords ?? null,
    classification: r?.classification ?? null,
    speakers: r?.speakers ?? null,
    visualChunksUsed: r?.visualChunksUsed ?? null,
    visualChunkCount: r?.visualChunkCount ?? null,
    ...staleness(r?.transcriptRevision, currentRevision),
    generated: r?.generatedBy ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  });
});

/** The part of a transcription job's record (its `data` column) a summary by job id reads: the transcript it made. */
const TranscriptionJobData = z.object({ input: z.object({ textSourceId: z.string().min(1) }) });

export const summarizationWorker = defineWorkerService<"summarization">({
  meter: "summarization_credits",
  resolve: async ({ db, projectId, settings }, input) => {
    const ref = input.textSourceJobId;
    // The spec writes this detail path without the `input.` prefix.
    const path = "textSourceJobId";
    let t: TranscriptRow | undefined;
    if (ref.startsWith("job_")) {
      const job = await db
        .select({ id: jobs.id, input: jobs.data })
        .from(jobs)
        .where(and(eq(jobs.id, ref), eq(jobs.projectId, projectId), eq(jobs.serviceType, "transcription")))
        .get();
      const txt = job ? TranscriptionJobData.safeParse(job.input).data?.input.textSourceId : undefined;
      t = txt ? await findTranscript(db, projectId, txt) : undefined;
      if (!t) throw notFound(`transcription not found for job: ${ref}`, [{ path, issue: "notFound" }]);
    } else {
      t = await findTranscript(db, projectId, ref);
      if (!t) throw notFound(`transcription not found: ${ref}`, [{ path, issue: "notFound" }]);
    }
    if (t.status !== "completed" || t.segmentCount === 0)
      throw validationError(`transcription ${t.id} has no segments`, [{ path, issue: "noSegments" }]);
    await requireRedactedUnderPolicy(db, t, path);
    const summarizationId = newId("summarization");
    const config = synthesisConfig(settings);
    const textSourceId = t.id;
    return {
      input: { ...input, textSourceId, summarizationId, config },
      credits: 1,
      record: {
        statements: async (jobId, now) => [
          db.insert(summarizations).values({
            id: summarizationId,
            projectId,
            jobId,
            textSourceId,
            status: "pending",
            config,
            result: null,
            createdAt: now,
            updatedAt: now,
          }),
        ],
        remove: async () => {
          await db.delete(summarizations).where(eq(summarizations.id, summarizationId));
        },
      },
    };
  },
  sinks: { summarization: saveSummary },
  onEnded: async ({ db }, job) => {
    if (job.status === "completed") return;
    await db
      .update(summarizations)
      .set({ status: "failed", updatedAt: nowIso() })
      .where(and(eq(summarizations.id, SummarizationStoredSchema.parse(job.input).summarizationId), eq(summarizations.status, "pending")));
  },
  runnerSettings: (s) => ({ runner: s.runner, understanding: s.understanding }),
  routes: { "/summarizations": summarizationRoutes },
});
