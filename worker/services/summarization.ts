import { and, eq } from "drizzle-orm";
import { jobs } from "../db/schema";
import { notFound, validationError } from "../errors";
import { findTranscript, type TranscriptRow } from "../jobs/references";
import { defineWorkerService, runnerBase } from "./types";

/** Summarization of a transcript and its visual chunks (pipeline not built yet). */
export const summarizationWorker = defineWorkerService<"summarization">({
  meter: "summarization_credits",
  resolve: async ({ db, projectId }, input) => {
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
      const txt = job ? ((job.input["input"] as Record<string, unknown> | undefined)?.["textSourceId"] as string | undefined) : undefined;
      t = txt ? await findTranscript(db, projectId, txt) : undefined;
      if (!t) throw notFound(`transcription not found for job: ${ref}`, [{ path, issue: "notFound" }]);
    } else {
      t = await findTranscript(db, projectId, ref);
      if (!t) throw notFound(`transcription not found: ${ref}`, [{ path, issue: "notFound" }]);
    }
    if (t.status !== "completed" || t.segmentCount === 0)
      throw validationError(`transcription ${t.id} has no segments`, [{ path, issue: "noSegments" }]);
    return { input: { ...input, textSourceId: t.id, config: { synthesis: "platform-default" } }, credits: 1 };
  },
  sinks: {},
  runnerSettings: runnerBase,
});
