import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { PRIORITIES } from "../../contracts/service-types";
import { randomToken } from "../../contracts/ids";
import {
  CompleteRequestSchema,
  EventsRequestSchema,
  FailRequestSchema,
  LeaseRequestSchema,
  LeaseTokenBodySchema,
  type LeasedTask,
  type StorageGrant,
} from "../../contracts/runner-protocol";
import type { Job } from "../../contracts/job";
import type { LeaseCheck } from "../../durable-objects/job-do";
import { getDb } from "../db/client";
import { storageConnections } from "../db/schema";
import { requireSecret } from "../auth/middleware";
import type { AppBindings, Env } from "../env";
import { ApiError } from "../errors";
import { ok } from "../http/envelope";
import { jsonBody } from "../http/validate";
import { nowIso } from "../platform/clock";
import { loadSettings } from "../platform/settings";
import { jobStub } from "../jobs/stubs";
import { connectionLocation } from "../storage/connections";

/**
 * The gpu-runner protocol (contracts/runner-protocol.ts). The D1 row is the lane; the JobDO is
 * the authority on whether a claimed task is still current and owns its lease from then on.
 */

const MAX_CLAIMS_PER_LEASE_CALL = 5;

interface ClaimedRow {
  id: string;
  job_id: string;
  attempt: number;
  step_index: number;
}

/** One atomic statement: pick the best available task (lane, then age) and lease it. */
async function claimNext(db: D1Database, runnerId: string, lanes: string[], handlers: string[], token: string): Promise<ClaimedRow | null> {
  const now = nowIso();
  return db
    .prepare(
      `UPDATE runner_tasks SET state = 'leased', lease_token = ?, runner_id = ?, updated_at = ?
       WHERE id = (
         SELECT id FROM runner_tasks
         WHERE state = 'available' AND handler IN (${handlers.map(() => "?").join(",")}) AND lane IN (${lanes.map(() => "?").join(",")})
         ORDER BY lane_rank ASC, created_at ASC LIMIT 1
       ) AND state = 'available'
       RETURNING id, job_id, attempt, step_index`,
    )
    .bind(token, runnerId, now, ...handlers, ...lanes)
    .first<ClaimedRow>();
}

async function storageGrant(env: Env, job: Job): Promise<StorageGrant | null> {
  const connectionId = job.input["connectionId"];
  const bucket = job.input["bucket"];
  if (typeof connectionId !== "string" || typeof bucket !== "string") return null;
  const conn = await getDb(env.DB)
    .select()
    .from(storageConnections)
    .where(and(eq(storageConnections.id, connectionId), eq(storageConnections.projectId, job.projectId)))
    .get();
  if (!conn) return null;
  return { connectionId, bucket, ...(await connectionLocation(conn, env.ENCRYPTION_KEY)) };
}

function unwrap<T>(r: LeaseCheck<T>): T {
  if (r.ok) return r.value;
  throw new ApiError(r.reason === "leaseLost" ? "leaseLost" : "conflict", r.message);
}

export const runnerRoutes = new Hono<AppBindings>()
  .use(requireSecret("RUNNER_TOKEN", "runner routes"))
  .post("/lease", async (c) => {
    const body = await jsonBody(c, LeaseRequestSchema);
    const lanes = PRIORITIES.filter((l) => body.lanes.includes(l));
    const settings = await loadSettings(getDb(c.env.DB));
    for (let i = 0; i < MAX_CLAIMS_PER_LEASE_CALL; i++) {
      const token = randomToken(32);
      const row = await claimNext(c.env.DB, body.runnerId, lanes, body.handlers, token);
      if (!row) break;
      const started = await jobStub(c.env, row.job_id).leaseStarted({ taskId: row.id, token, runnerId: body.runnerId, attempt: row.attempt, stepIndex: row.step_index });
      if (!started.ok) {
        // Stale work (cancelled job, superseded attempt): drop it and look for the next task.
        await c.env.DB.prepare("UPDATE runner_tasks SET state = 'dead', updated_at = ? WHERE id = ?").bind(nowIso(), row.id).run();
        continue;
      }
      const { job, step, leaseUntil } = started.value;
      const task: LeasedTask = {
        taskId: row.id,
        leaseToken: token,
        leaseUntil,
        heartbeatIntervalSec: settings.runner.heartbeatIntervalSeconds,
        jobId: job.jobId,
        attempt: row.attempt,
        serviceType: job.serviceType,
        step,
        input: job.input,
        storage: await storageGrant(c.env, job),
        settings: { transcription: settings.transcription },
      };
      return ok(c, { task });
    }
    return ok(c, { task: null });
  })
  .post("/tasks/:taskId/heartbeat", async (c) => {
    const body = await jsonBody(c, LeaseTokenBodySchema);
    const stub = await stubForTask(c.env, c.req.param("taskId"));
    return ok(c, unwrap(await stub.heartbeat(c.req.param("taskId"), body.leaseToken)));
  })
  .post("/tasks/:taskId/events", async (c) => {
    const body = await jsonBody(c, EventsRequestSchema);
    const stub = await stubForTask(c.env, c.req.param("taskId"));
    return ok(c, unwrap(await stub.recordEvents(c.req.param("taskId"), body.leaseToken, body.events)));
  })
  .post("/tasks/:taskId/complete", async (c) => {
    const body = await jsonBody(c, CompleteRequestSchema);
    const stub = await stubForTask(c.env, c.req.param("taskId"));
    unwrap(await stub.completeStep(c.req.param("taskId"), body.leaseToken, body.result));
    return ok(c, { ok: true });
  })
  .post("/tasks/:taskId/fail", async (c) => {
    const body = await jsonBody(c, FailRequestSchema);
    const stub = await stubForTask(c.env, c.req.param("taskId"));
    unwrap(await stub.failStep(c.req.param("taskId"), body.leaseToken, body.error));
    return ok(c, { ok: true });
  })
  .post("/tasks/:taskId/cancelled", async (c) => {
    const body = await jsonBody(c, LeaseTokenBodySchema);
    const stub = await stubForTask(c.env, c.req.param("taskId"));
    unwrap(await stub.ackCancelled(c.req.param("taskId"), body.leaseToken));
    return ok(c, { ok: true });
  })
  .post("/tasks/:taskId/release", async (c) => {
    const body = await jsonBody(c, LeaseTokenBodySchema);
    const stub = await stubForTask(c.env, c.req.param("taskId"));
    unwrap(await stub.release(c.req.param("taskId"), body.leaseToken));
    return ok(c, { ok: true });
  });

async function stubForTask(env: Env, taskId: string) {
  const row = await env.DB.prepare("SELECT job_id FROM runner_tasks WHERE id = ?").bind(taskId).first<{ job_id: string }>();
  if (!row) throw new ApiError("leaseLost", `unknown task ${taskId}; stop work on it`);
  return jobStub(env, row.job_id);
}
