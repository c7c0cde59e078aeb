import { and, desc, eq } from "drizzle-orm";
import { Hono } from "hono";
import type { Job } from "../../contracts/job";
import { principalOf, projectOf } from "../auth/middleware";
import { actorOf } from "../auth/principal";
import { getDb, noteBookmark } from "../db/client";
import { jobs, webhookDeliveries } from "../db/schema";
import type { AppBindings, Env } from "../env";
import { ApiError, conflict, errorBody, notFound } from "../errors";
import { ok } from "../http/envelope";
import { queryWith, readJson } from "../http/validate";
import { createJob } from "../jobs/create";
import { beginIdempotent } from "../jobs/idempotency";
import { listJobs, ListJobsQuerySchema } from "../jobs/list";
import { jobStub } from "../jobs/stubs";
import { replayDelivery } from "../jobs/webhook-replay";

/** A job of the project, from its Durable Object (the authority, even before D1 has its row); null when there is none. */
async function findJob(env: Env, projectId: string, jobId: string): Promise<Job | null> {
  const job = await jobStub(env, jobId).get();
  return job && job.projectId === projectId ? job : null;
}

const logUnrecorded = (jobId: string) => (err: unknown) =>
  console.error(JSON.stringify({ level: "error", msg: "idempotency: answer not recorded", jobId, error: String(err) }));

async function loadJob(env: Env, projectId: string, jobId: string): Promise<Job> {
  const row = await getDb(env.DB)
    .select({ data: jobs.data })
    .from(jobs)
    .where(and(eq(jobs.id, jobId), eq(jobs.projectId, projectId)))
    .get();
  if (!row) throw notFound(`job not found: ${jobId}`, [{ path: "jobId", issue: `notFound:${jobId}` }]);
  return row.data as unknown as Job;
}

export const jobRoutes = new Hono<AppBindings>()
  .post("/", async (c) => {
    const p = principalOf(c);
    const { value, raw } = await readJson(c);
    const key = c.req.header("idempotency-key");
    const timing = c.get("timing");
    if (!key) return ok(c, await createJob(c.env, p, value, timing), {}, 201);
    const projectId = projectOf(p);
    const begin = () => beginIdempotent(c.env.DB, projectId, key, raw, (jobId) => findJob(c.env, projectId, jobId));
    const begun = timing ? await timing.time("idempotency", begin) : await begin();
    if (begun.kind === "replay") {
      c.header("Idempotent-Replayed", "true");
      return c.body(begun.body, begun.status as 201, { "content-type": "application/json" });
    }
    if (begun.kind === "recovered") {
      // An earlier request with this key made the job but its answer was never stored: the job is the answer.
      const body = { data: begun.job, metadata: {} };
      await begun.finish(201, body).catch(logUnrecorded(begun.job.jobId));
      c.header("Idempotent-Replayed", "true");
      return c.json(body, 201);
    }
    let job: Job;
    try {
      job = await createJob(c.env, p, value, timing, begun);
    } catch (err) {
      // Client errors are final answers and are replayed; anything else frees the key for a retry.
      const final = err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 409 && err.status !== 429;
      if (final) {
        await begun.finish(err.status, errorBody(err.code, err.message, err.details, err.metadata));
      } else {
        await begun.abandon();
      }
      throw err;
    }
    const body = { data: job, metadata: {} };
    // The job exists and is charged: failing to store the answer must not turn into an error a client
    // retries. The key still names the job, so a retry with it is answered with this job.
    await begun.finish(201, body).catch(logUnrecorded(job.jobId));
    return c.json(body, 201);
  })
  .get("/", async (c) => {
    const p = principalOf(c);
    const q = queryWith(c, ListJobsQuerySchema);
    const { data, pagination } = await listJobs(c.env.DB, projectOf(p), q);
    return ok(c, data, { pagination });
  })
  .get("/:jobId", async (c) => {
    const p = principalOf(c);
    return ok(c, await loadJob(c.env, projectOf(p), c.req.param("jobId")));
  })
  .get("/:jobId/progress", async (c) => {
    const p = principalOf(c);
    const job = await loadJob(c.env, projectOf(p), c.req.param("jobId"));
    const view = await jobStub(c.env, job.jobId).getProgress();
    return ok(c, view ?? { progress: [], currentStage: null, attemptHistory: [] });
  })
  .post("/:jobId/cancel", async (c) => {
    const p = principalOf(c);
    const job = await loadJob(c.env, projectOf(p), c.req.param("jobId"));
    const a = actorOf(p);
    const r = await jobStub(c.env, job.jobId).cancel({ label: a.label, kind: a.kind, userId: a.userId, apiKeyId: a.apiKeyId });
    if (!r.ok)
      throw conflict(`job ${job.jobId} is ${r.status} and can no longer be cancelled`, [{ path: "jobId", issue: `status:${r.status}` }]);
    // The Durable Object mirrored the cancel outside this request's D1 session: the answer's bookmark covers it.
    noteBookmark(c.env.DB, r.bookmark);
    return ok(c, r.job);
  })
  .get("/:jobId/webhook-deliveries", async (c) => {
    const p = principalOf(c);
    const job = await loadJob(c.env, projectOf(p), c.req.param("jobId"));
    const rows = await getDb(c.env.DB)
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.jobId, job.jobId))
      .orderBy(desc(webhookDeliveries.at))
      .all();
    return ok(
      c,
      rows.map((r) => ({
        deliveryId: r.id,
        eventId: r.eventId,
        event: r.event,
        url: r.url,
        attempt: r.attempt,
        outcome: r.outcome,
        responseStatus: r.responseStatus,
        error: r.errorMessage,
        durationMs: r.durationMs,
        nextRetryAt: r.nextRetryAt,
        at: r.at,
      })),
    );
  })
  .post("/:jobId/webhook-deliveries/:deliveryId/replay", async (c) => {
    const p = principalOf(c);
    const job = await loadJob(c.env, projectOf(p), c.req.param("jobId"));
    return ok(c, await replayDelivery(c.env, getDb(c.env.DB), job, c.req.param("deliveryId")), {}, 202);
  });
