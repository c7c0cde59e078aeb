import { Hono } from "hono";
import { randomToken } from "../../contracts/ids";
import {
  CompleteRequestSchema,
  EventsRequestSchema,
  FailRequestSchema,
  LeaseRequestSchema,
  LeaseTokenBodySchema,
  ServiceCallRequestSchema,
  TranscriptRequestSchema,
  type LeasedTask,
} from "../../contracts/runner-protocol";
import { PRIORITIES } from "../../contracts/service-types";
import type { LeaseCheck } from "../../durable-objects/job-do";
import { laneSignal } from "../../durable-objects/lane-signal";
import { claimTask, failTask, jobOfTask } from "../../durable-objects/runner-lane";
import type { RunnerIdentity } from "../auth/principal";
import { authenticateRunner } from "../auth/runner-tokens";
import { getDb } from "../db/client";
import type { AppBindings, Env } from "../env";
import { ApiError, forbidden } from "../errors";
import { ok } from "../http/envelope";
import { jsonBody } from "../http/validate";
import { taskGrants } from "../jobs/lease-grants";
import { blobStore } from "../storage/blobs";
import { scratchPrefix } from "../storage/scratch";
import { jobStub } from "../jobs/stubs";
import { loadSettings } from "../platform/settings";
import { workerService } from "../services/index";
import { transcriptForRunner } from "../transcripts/runner-view";

/**
 * The gpu-runner protocol (contracts/runner-protocol.ts). The D1 row is the lane
 * (durable-objects/runner-lane.ts); the JobDO is the authority on whether a claimed task is still current
 * and owns its lease from then on.
 */

const MAX_CLAIMS_PER_LEASE_CALL = 5;
/** A long poll looks at the lane again at least this often, signal or not (a safety net). */
const LEASE_RECHECK_MS = 2_000;

function unwrap<T>(r: LeaseCheck<T>): T {
  if (r.ok) return r.value;
  throw new ApiError(r.reason === "leaseLost" ? "leaseLost" : r.reason === "protocolError" ? "protocolError" : "conflict", r.message);
}

/**
 * Claims the best available task within the runner token's scopes and binds its lease in the JobDO
 * (with the token's id: only that token may report on it); stale rows are dropped on the way.
 */
async function leaseOne(
  env: Env,
  runner: RunnerIdentity,
  runnerId: string,
  lanes: readonly string[],
  handlers: readonly string[],
): Promise<LeasedTask | null> {
  for (let i = 0; i < MAX_CLAIMS_PER_LEASE_CALL; i++) {
    const token = randomToken(32);
    const row = await claimTask(env.DB, { runnerId, runnerTokenId: runner.tokenId, lanes, handlers, workspaces: runner.workspaces, token });
    if (!row) return null;
    const started = await jobStub(env, row.job_id).leaseStarted({
      taskId: row.id,
      token,
      runnerId,
      runnerTokenId: runner.tokenId,
      attempt: row.attempt,
      stepIndex: row.step_index,
    });
    if (!started.ok) {
      // Stale work (cancelled job, superseded attempt): drop it and look for the next task.
      await failTask(env.DB, row.id);
      continue;
    }
    const { job, step, outputs, leaseUntil } = started.value;
    const settings = await loadSettings(getDb(env.DB));
    // Null: the job's connection was deactivated, and the task has been failed; look for the next one.
    const grants = await taskGrants(env, job, { taskId: row.id, token, runnerTokenId: runner.tokenId });
    if (!grants) continue;
    const { storage, presigned } = grants;
    return {
      taskId: row.id,
      leaseToken: token,
      leaseUntil,
      heartbeatIntervalSec: settings.runner.heartbeatIntervalSeconds,
      jobId: job.jobId,
      attempt: row.attempt,
      serviceType: job.serviceType,
      step,
      input: job.input,
      storage,
      presigned,
      // Each service hands its steps only the settings they need (its slice plus the runner's periods).
      settings: workerService(step.service).runnerSettings(settings),
      outputs,
      scratchPrefix: storage ? scratchPrefix(job.jobId) : null,
    };
  }
  return null;
}

/** The lanes asked for that the token may lease from, highest first; none is the runner's misconfiguration (403). */
function allowedLanes(runner: RunnerIdentity, asked: readonly string[]): string[] {
  const lanes = PRIORITIES.filter((l) => asked.includes(l) && (!runner.lanes || runner.lanes.includes(l)));
  if (lanes.length === 0)
    throw forbidden(
      `runner token ${runner.tokenId} may lease only from lanes ${runner.lanes?.join(", ")}; this lease asked for ${asked.join(", ")}`,
    );
  return lanes;
}

export const runnerRoutes = new Hono<AppBindings>()
  .use(authenticateRunner)
  // Leases carry storage credentials and presigned URLs; no answer of this protocol is kept by a cache.
  .use(async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
  })
  .post("/lease", async (c) => {
    const body = await jsonBody(c, LeaseRequestSchema);
    const runner = c.get("runner");
    const lanes = allowedLanes(runner, body.lanes);
    if (body.waitSeconds === 0) return ok(c, { task: await leaseOne(c.env, runner, body.runnerId, lanes, body.handlers) });
    // Long poll: read the lane signal before looking, so work enqueued in between wakes us at once.
    const signal = laneSignal(c.env.LANE);
    const deadline = Date.now() + body.waitSeconds * 1000;
    for (;;) {
      const seen = await signal.current();
      const task = await leaseOne(c.env, runner, body.runnerId, lanes, body.handlers);
      const left = deadline - Date.now();
      if (task || left <= 0) return ok(c, { task });
      await signal.waitAfter(seen, Math.min(left, LEASE_RECHECK_MS));
    }
  })
  .post("/tasks/:taskId/heartbeat", async (c) => {
    const body = await jsonBody(c, LeaseTokenBodySchema);
    const stub = await stubForTask(c.env, c.req.param("taskId"));
    return ok(c, unwrap(await stub.heartbeat(c.req.param("taskId"), body.leaseToken, c.get("runner").tokenId)));
  })
  .post("/tasks/:taskId/events", async (c) => {
    const body = await jsonBody(c, EventsRequestSchema);
    const stub = await stubForTask(c.env, c.req.param("taskId"));
    return ok(c, unwrap(await stub.recordEvents(c.req.param("taskId"), body.leaseToken, body.events, c.get("runner").tokenId)));
  })
  .post("/tasks/:taskId/complete", async (c) => {
    const body = await jsonBody(c, CompleteRequestSchema);
    const taskId = c.req.param("taskId");
    const runner = c.get("runner");
    const stub = await stubForTask(c.env, taskId);
    // The result is checked against the job while the lease still stands, so a refusal leaves the
    // runner to fail the task. Without the lease (a repeat of an accepted complete), completeStep decides.
    const holder = await stub.leaseHolder(taskId, body.leaseToken, runner.tokenId);
    if (holder.ok) {
      const { job, step } = holder.value;
      const check = workerService(step.service).resultChecks?.[step.handler];
      await check?.({ env: c.env, db: getDb(c.env.DB), job, step }, body.result);
    }
    unwrap(await stub.completeStep(taskId, body.leaseToken, body.result, runner.tokenId));
    return ok(c, { ok: true });
  })
  .post("/tasks/:taskId/fail", async (c) => {
    const body = await jsonBody(c, FailRequestSchema);
    const stub = await stubForTask(c.env, c.req.param("taskId"));
    unwrap(await stub.failStep(c.req.param("taskId"), body.leaseToken, body.error, c.get("runner").tokenId));
    return ok(c, { ok: true });
  })
  .post("/tasks/:taskId/cancelled", async (c) => {
    const body = await jsonBody(c, LeaseTokenBodySchema);
    const stub = await stubForTask(c.env, c.req.param("taskId"));
    unwrap(await stub.ackCancelled(c.req.param("taskId"), body.leaseToken, c.get("runner").tokenId));
    return ok(c, { ok: true });
  })
  .post("/tasks/:taskId/transcript", async (c) => {
    const body = await jsonBody(c, TranscriptRequestSchema);
    const { job } = await leaseHolder(c.env, c.get("runner"), c.req.param("taskId"), body.leaseToken);
    return ok(c, await transcriptForRunner(getDb(c.env.DB), blobStore(c.env.BLOBS), job, body.textSourceId));
  })
  .post("/tasks/:taskId/calls/:name", async (c) => {
    const body = await jsonBody(c, ServiceCallRequestSchema);
    const holder = await leaseHolder(c.env, c.get("runner"), c.req.param("taskId"), body.leaseToken);
    const name = c.req.param("name");
    const calls = workerService(holder.step.service).runnerCalls ?? {};
    // Own names only: `constructor` or `toString` would otherwise reach Object.prototype.
    const call = Object.hasOwn(calls, name) ? calls[name] : undefined;
    if (!call) throw new ApiError("protocolError", `service ${holder.step.service} has no runner call ${name}`);
    return ok(c, await call({ env: c.env, db: getDb(c.env.DB), ...holder }, body.body));
  })
  .post("/tasks/:taskId/release", async (c) => {
    const body = await jsonBody(c, LeaseTokenBodySchema);
    const stub = await stubForTask(c.env, c.req.param("taskId"));
    unwrap(await stub.release(c.req.param("taskId"), body.leaseToken, c.get("runner").tokenId));
    return ok(c, { ok: true });
  });

/** The job and step of a task, for its lease holder only. */
async function leaseHolder(env: Env, runner: RunnerIdentity, taskId: string, token: string) {
  const stub = await stubForTask(env, taskId);
  return unwrap(await stub.leaseHolder(taskId, token, runner.tokenId));
}

async function stubForTask(env: Env, taskId: string) {
  const jobId = await jobOfTask(env.DB, taskId);
  if (!jobId) throw new ApiError("leaseLost", `unknown task ${taskId}; stop work on it`);
  return jobStub(env, jobId);
}
