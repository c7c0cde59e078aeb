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

  const now = nowIso();
  const workflowId = opts.workflowId ?? (await derivedWorkflowId(crypto.randomUUID()));
  const workflow: Workflow = {
    workflowId,
    workspaceId: principal.workspaceId,
    projectId,
    presetId: preset?.presetId ?? null,
    status: "running",
    steps: plan.steps.map((s) => ({
      id: s.id,
      serviceType: s.body["serviceType"] as Workflow["steps"][number]["serviceType"],
      dependsOn: s.dependsOn,
      status: "waiting",
      jobId: null,
      error: null,
      createdAt: null,
      endedAt: null,
    })),
    credits: plan.credits as Record<string, number>,
    trigger: opts.trigger ?? null,
    variables,
    error: null,
    webhookUrl: webhookUrl ?? null,
    userMetadata: userMetadata ?? null,
    createdByLabel: actorOf(principal).label,
    cancelRequestedAt: null,
    createdAt: now,
    updatedAt: now,
    endedAt: null,
  };
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
  const now = nowIso();
  const workflow: Workflow = {
    workflowId: opts.workflowId,
    workspaceId: principal.workspaceId,
    projectId,
    presetId: preset?.presetId ?? presetId,
    status: "failed",
    steps: (preset?.steps ?? []).map((s) => ({
      id: s.id,
      serviceType: s.serviceType,
      dependsOn: s.dependsOn ?? [],
      status: "skipped",
      jobId: null,
      error: null,
      createdAt: null,
      endedAt: now,
    })),
    credits: {},
    trigger: opts.trigger,
    variables: {},
    error: { code: "workflow_refused", message: `${refusal.code}: ${refusal.message}` },
    webhookUrl: preset?.webhookUrl ?? null,
    userMetadata: preset?.userMetadata ?? null,
    createdByLabel: actorOf(principal).label,
    cancelRequestedAt: null,
    createdAt: now,
    updatedAt: now,
    endedAt: now,
  };
  return workflowStub(env, opts.workflowId).create(workflow, {
    creator: principal,
    steps: [],
    triggerKey: opts.triggerKey,
    requestHash: null,
  });
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
