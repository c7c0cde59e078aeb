import { z } from "zod";
import { CreateJobSchema, type CreateJobRequest } from "../../contracts/job-requests";
import { newJob, type Job } from "../../contracts/job";
import { newId } from "../../contracts/ids";
import { PRIORITY_BY_PLAN } from "../../contracts/service-types";
import type { Settings } from "../../contracts/settings";
import type { Principal } from "../auth/principal";
import { actorOf } from "../auth/principal";
import { boundStatement, getDb, noteBookmark } from "../db/client";
import type { Env } from "../env";
import { ApiError, validationError, zodDetails, zodMessage } from "../errors";
import { ServerTiming } from "../http/server-timing";
import { loadSettings } from "../platform/settings";
import { refusalDetail, webhookUrlRefusal } from "../platform/outbound-url";
import { workerService } from "../services/index";
import { pipelineFor } from "../services/pipelines";
import type { CreateContext } from "../services/types";
import { refuseUnwiredPresigned } from "../services/shared/presigned-checks";
import { assertWithinQuota, chargeWrite, quotaUsage, refund } from "../accounts/credits";
import { takenOver } from "./idempotency";
import { jobStub } from "./stubs";
import { nowIso } from "../../contracts/clock";

/** Summarization's detail path is `textSourceJobId` (no `input.` prefix), as the spec writes it. */
function specPath(path: string): string {
  return path === "input.textSourceJobId" ? "textSourceJobId" : path;
}

export function parseCreateRequest(body: unknown): CreateJobRequest {
  return parseCreateRequestExcusing(body, () => false) as CreateJobRequest;
}

/**
 * The body checked as `parseCreateRequest` does, except that problems at the paths `excused` names
 * are not refused: a workflow's step whose field still holds a template (`{{transcribe.textSourceId}}`)
 * is checked whole when its job is made. Null when only excused problems were found.
 */
export function parseCreateRequestExcusing(body: unknown, excused: (path: string) => boolean): CreateJobRequest | null {
  refuseUnwiredPresigned(body);
  const r = CreateJobSchema.safeParse(body, { reportInput: true });
  // The union is built from the service index, so zod infers it loosely; the contracts' input
  // schemas are what it checked, and `CreateJobRequest` is the same union spelled per service type.
  if (r.success) return r.data as CreateJobRequest;
  const remaining = r.error.issues.filter((i) => !excused(i.path.join(".")));
  if (remaining.length === 0) return null;
  const error = new z.ZodError(remaining);
  const details = zodDetails(error).map((d) => ({ ...d, path: specPath(d.path) }));
  throw validationError(zodMessage(error), details);
}

export function checkWebhookUrl(url: string | null | undefined, settings: Settings, environment: string): void {
  const refusal = url ? webhookUrlRefusal(url, settings, environment) : null;
  if (!refusal) return;
  // The spec's wording for the scheme rule; a refused host names why.
  throw validationError(
    refusal.issue === "httpsRequired" ? "webhookUrl must start with https://" : refusal.message,
    refusalDetail("webhookUrl", refusal),
  );
}

/** Everything the substring filters of GET /v1/jobs search, flattened once at create. */
function searchColumns(job: Job): { userSearch: string; inputSearch: string } {
  const userSearch = [job.createdByLabel, job.apiKeyLabel ?? "", job.apiKeyId].join("\n").toLowerCase();
  const i = job.input;
  const source = i["bucket"] && i["sourceKey"] ? `s3://${String(i["bucket"])}/${String(i["sourceKey"])}` : "";
  const inputSearch = [source, job.sourceDisplayName ?? "", JSON.stringify(i)].join("\n").toLowerCase();
  return { userSearch, inputSearch };
}

/**
 * What an idempotent create (worker/jobs/idempotency.ts) learns of the job as it is made: its id,
 * recorded before the Durable Object is asked, and released again if the job was not made.
 */
export interface JobIdClaim {
  /** The claim as one write of the create's batch: it returns a row when it went through. */
  claimStatement(jobId: string): D1PreparedStatement;
  release(): Promise<void>;
}

/**
 * POST /v1/jobs, in this order (docs/api.md, "Create: order of checks"): the body (zod), the
 * references (the service's checks, no charge), whether the service's pipeline is built, the quota,
 * the S3 probes, then the atomic charge (with the idempotency claim and the service's record beside
 * it). The job is then handed to its Durable Object, which mirrors it to D1 and puts it on the queue.
 * Each phase is timed into `timing` (the route answers it as Server-Timing).
 *
 * A failure after charging refunds and removes the records made with the job, but only once it is
 * known that no job was made: when the Durable Object's answer is lost, the object is asked whether
 * it holds the job (then the create succeeded after all). When even that cannot be told, the charge
 * and records stay (a job may be running on them) and the error is answered.
 */
export async function createJob(
  env: Env,
  principal: Principal,
  body: unknown,
  timing = new ServerTiming(),
  idempotency?: JobIdClaim,
  /**
   * `jobId`: the id to give the job (a workflow reserves its step's before making it, worker/workflows).
   * `extraSourceExtensions`: see CreateContext (the OpenAI-compatible endpoint's audio uploads).
   */
  opts: { jobId?: string } & Pick<CreateContext, "extraSourceExtensions"> = {},
): Promise<Job> {
  const req = parseCreateRequest(body);
  const db = getDb(env.DB);
  const settings = await timing.time("settings", () => loadSettings(db));
  checkWebhookUrl(req.webhookUrl, settings, env.ENVIRONMENT);
  const projectId = principal.projectId as string;
  const service = workerService(req.serviceType);
  // A service without a meter is not charged (voice_consent): no quota is read and no charge written.
  const meter = service.meter;
  // The quota's read needs no reference: it runs beside the reference checks (one round trip less),
  // and is judged after them, in the documented order of checks.
  const usage = meter ? timing.time("quota", () => quotaUsage(env.DB, settings, principal.workspaceId, principal.plan, meter)) : null;
  // A reference error is answered first; the read's own failure, if any, is then nobody's to handle.
  usage?.catch(() => undefined);
  const actor = actorOf(principal);
  const resolved = await timing.time("references", () =>
    service.resolve(
      {
        env,
        db,
        projectId,
        plan: principal.plan,
        settings,
        actor: { kind: actor.kind, id: actor.userId ?? principal.keyId, label: actor.label },
        ...(opts.extraSourceExtensions ? { extraSourceExtensions: opts.extraSourceExtensions } : {}),
      },
      req.input,
    ),
  );

  const steps = pipelineFor(req.serviceType, settings, env);
  if (!steps) {
    throw new ApiError(
      "serviceNotAvailable",
      `service type ${req.serviceType} is not available on this deployment yet: its pipeline is not built; the request was valid and nothing was charged`,
      [{ path: "serviceType", issue: `serviceNotAvailable:${req.serviceType}` }],
    );
  }

  if (usage) assertWithinQuota(await usage, resolved.credits);
  const probe = resolved.probe;
  if (probe) await timing.time("probes", probe);

  const jobId = opts.jobId ?? newId("job");
  const now = nowIso();
  const record = resolved.record;
  // The charge, the key's claim and the service's record commit together in one D1 batch (one round
  // trip, one transaction: a write that fails leaves none of them). None is visible before the job
  // exists (the record's id is the new job's). A charge the limit refused, or a claim taken over,
  // writes no row of its own: what the batch made beside it is undone before the error is answered.
  const charged = meter ? chargeWrite(env.DB, settings, principal.workspaceId, principal.plan, meter, resolved.credits) : null;
  const claim = idempotency?.claimStatement(jobId);
  const recordWrites = record ? await record.statements(jobId, now) : [];
  const statements = [
    ...(charged ? [charged.statement] : []),
    ...(claim ? [claim] : []),
    ...recordWrites.map((w) => boundStatement(env.DB, w)),
  ];
  // Each statement's result in order: the charge's and the claim's hold the rows they returned.
  const answers = await timing.time("charge", () => env.DB.batch(statements));
  const chargeWent = !charged || (answers[0]?.results.length ?? 0) > 0;
  const claimWent = !claim || (answers[charged ? 1 : 0]?.results.length ?? 0) > 0;
  if (!chargeWent || !claimWent) {
    if (charged && chargeWent) await refund(env.DB, charged.charge);
    if (claim && claimWent) await idempotency?.release();
    await record?.remove();
    // The quota's refusal first: the documented order of checks puts the charge before the rest.
    throw chargeWent || !charged ? takenOver() : await charged.refusal();
  }

  let askedDurableObject = false;
  try {
    const job = newJob({
      jobId,
      serviceType: req.serviceType,
      priority: PRIORITY_BY_PLAN[principal.plan],
      workspaceId: principal.workspaceId,
      projectId,
      workspacePlan: principal.plan,
      input: resolved.input,
      ...(resolved.sourceDisplayName !== undefined ? { sourceDisplayName: resolved.sourceDisplayName } : {}),
      webhookUrl: req.webhookUrl ?? null,
      createdByLabel: actor.label,
      createdByKind: actor.kind,
      apiKeyLabel: principal.keyKind === "console" ? null : principal.keyName,
      apiKeyId: principal.keyId,
      isConsoleKey: actor.isConsole,
      createdAt: now,
      userMetadata: req.userMetadata ?? null,
    });
    askedDurableObject = true;
    const created = await timing.time("do", () => jobStub(env, jobId).create(job, steps, searchColumns(job)));
    for (const [name, ms] of Object.entries(created.timings)) timing.add(`do.${name}`, ms);
    // The job's row was written by its Durable Object, outside this request's D1 session: the
    // bookmark this request answers must cover it, so the client's next read sees the job.
    noteBookmark(env.DB, created.bookmark);
    return created.job;
  } catch (err) {
    const made = askedDurableObject ? await madeAfterAll(env, jobId) : "no";
    if (made === "unknown") throw err;
    if (made !== "no") return made;
    if (charged) await refund(env.DB, charged.charge);
    await record?.remove();
    await idempotency?.release();
    throw err;
  }
}

/** Whether the Durable Object holds the job although its answer to `create` was an error. */
async function madeAfterAll(env: Env, jobId: string): Promise<Job | "no" | "unknown"> {
  try {
    return (await jobStub(env, jobId).get()) ?? "no";
  } catch (err) {
    console.error(JSON.stringify({ level: "error", msg: "create: cannot tell whether the job was made", jobId, error: String(err) }));
    return "unknown";
  }
}
