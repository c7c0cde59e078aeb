import { nowIso } from "../../contracts/clock";
import { CreateWorkflowSchema, type Workflow, type WorkflowStep, type WorkflowTrigger } from "../../contracts/workflows";
import type { Principal } from "../auth/principal";
import { actorOf } from "../auth/principal";
import { getDb } from "../db/client";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { parseWith } from "../http/validate";
import { checkWebhookUrl } from "../jobs/create";
import { sha256Hex } from "../platform/crypto";
import { loadSettings } from "../platform/settings";
import { planWorkflow } from "./plan";
import { requirePreset } from "./presets";
import { workflowStub } from "./stubs";

export interface CreateWorkflowOptions {
  /** The upload that starts it (a storage connection's trigger). */
  trigger?: WorkflowTrigger;
  /** Its id, when the caller names it (a key or an upload names one workflow however often it is asked). */
  workflowId?: string;
  triggerKey?: string;
  /** The request's bytes, kept to tell a repeated Idempotency-Key with another body. */
  requestHash?: string;
}

/** `wfl_` + 20 base36 characters taken from a hash: the id a name (a key, an upload) always gives. */
export async function derivedWorkflowId(name: string): Promise<string> {
  const hex = await sha256Hex(name);
  return (
    "wfl_" +
    BigInt("0x" + hex.slice(0, 26))
      .toString(36)
      .padStart(20, "0")
      .slice(-20)
  );
}

/**
 * POST /v1/workflows (and an upload's trigger): the body, the preset it names, the whole plan
 * (worker/workflows/plan.ts), then its WorkflowDO, which makes the first steps' jobs before answering.
 */
export async function createWorkflow(env: Env, principal: Principal, body: unknown, opts: CreateWorkflowOptions = {}): Promise<Workflow> {
  const req = parseWith(CreateWorkflowSchema, body);
  const db = getDb(env.DB);
  const projectId = principal.projectId as string;
  const preset = req.presetId ? await requirePreset(db, projectId, req.presetId, "presetId") : null;
  const steps: WorkflowStep[] = preset ? preset.steps : (req.steps ?? []);
  const webhookUrl = req.webhookUrl !== undefined ? req.webhookUrl : (preset?.webhookUrl ?? null);
  const userMetadata = req.userMetadata !== undefined ? req.userMetadata : (preset?.userMetadata ?? null);
  const variables = req.variables ?? {};
  const settings = await loadSettings(db);
  checkWebhookUrl(webhookUrl, settings, env.ENVIRONMENT);
  const plan = await planWorkflow({ env, db, principal, settings }, steps, variables, opts.trigger ?? null);

  const workflowId = opts.workflowId ?? (await derivedWorkflowId(crypto.randomUUID()));
  const workflow = newWorkflow(principal, workflowId, {
    presetId: preset?.presetId ?? null,
    steps: plan.steps.map((s) => ({
      id: s.id,
      serviceType: s.body["serviceType"] as Workflow["steps"][number]["serviceType"],
      dependsOn: s.dependsOn,
    })),
    credits: plan.credits as Record<string, number>,
    trigger: opts.trigger ?? null,
    variables,
    webhookUrl: webhookUrl ?? null,
    userMetadata: userMetadata ?? null,
  });
  const made = await workflowStub(env, workflowId).create(workflow, {
    creator: principal,
    steps: plan.steps,
    triggerKey: opts.triggerKey ?? null,
    requestHash: opts.requestHash ?? null,
  });
  return made;
}

/**
 * An upload's workflow its preset could not make (a quota used up, a template the object does not
 * fill): kept as a workflow that ended `failed` before any step ran, so the refusal is listed, read
 * and sent as the workflow's end event like any other, instead of lost in the store's event answer.
 */
export async function refusedWorkflow(
  env: Env,
  principal: Principal,
  presetId: string,
  opts: Required<Pick<CreateWorkflowOptions, "trigger" | "workflowId" | "triggerKey">>,
  refusal: ApiError,
): Promise<Workflow> {
  const db = getDb(env.DB);
  const projectId = principal.projectId as string;
  const preset = await requirePreset(db, projectId, presetId, "presetId").catch(() => null);
  const workflow = newWorkflow(principal, opts.workflowId, {
    presetId: preset?.presetId ?? presetId,
    steps: (preset?.steps ?? []).map((s) => ({ id: s.id, serviceType: s.serviceType, dependsOn: s.dependsOn ?? [] })),
    credits: {},
    trigger: opts.trigger,
    variables: {},
    webhookUrl: preset?.webhookUrl ?? null,
    userMetadata: preset?.userMetadata ?? null,
  });
  // Ended before it began: every step skipped, the refusal its error.
  const now = workflow.createdAt;
  workflow.status = "failed";
  workflow.endedAt = now;
  workflow.error = { code: "workflow_refused", message: `${refusal.code}: ${refusal.message}` };
  for (const step of workflow.steps) {
    step.status = "skipped";
    step.endedAt = now;
  }
  return workflowStub(env, opts.workflowId).create(workflow, {
    creator: principal,
    steps: [],
    triggerKey: opts.triggerKey,
    requestHash: null,
  });
}

/** A new workflow's record: running, every step waiting for its job. */
function newWorkflow(
  principal: Principal,
  workflowId: string,
  w: Pick<Workflow, "presetId" | "credits" | "trigger" | "variables" | "webhookUrl" | "userMetadata"> & {
    steps: Array<Pick<Workflow["steps"][number], "id" | "serviceType" | "dependsOn">>;
  },
): Workflow {
  const now = nowIso();
  return {
    workflowId,
    workspaceId: principal.workspaceId,
    projectId: principal.projectId as string,
    presetId: w.presetId,
    status: "running",
    steps: w.steps.map((s) => ({ ...s, status: "waiting", jobId: null, error: null, createdAt: null, endedAt: null })),
    credits: w.credits,
    trigger: w.trigger,
    variables: w.variables,
    error: null,
    webhookUrl: w.webhookUrl,
    userMetadata: w.userMetadata,
    createdByLabel: actorOf(principal).label,
    cancelRequestedAt: null,
    createdAt: now,
    updatedAt: now,
    endedAt: null,
  };
}

/** A workflow an Idempotency-Key already named: the same body answers it again; another body is refused. */
export async function replayedWorkflow(env: Env, workflowId: string, requestHash: string): Promise<Workflow | null> {
  const stub = workflowStub(env, workflowId);
  const existing = await stub.get();
  if (!existing) return null;
  if ((await stub.requestHash()) !== requestHash)
    throw new ApiError("idempotencyKeyReused", "this Idempotency-Key was already used with a different request body", [
      { path: "headers.Idempotency-Key", issue: "bodyMismatch" },
    ]);
  return existing;
}
