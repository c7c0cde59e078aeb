import type { Plan, ServiceType } from "../../contracts/service-types";
import type { QuotaMeter, Settings } from "../../contracts/settings";
import type { WorkflowTrigger, WorkflowStep } from "../../contracts/workflows";
import { fillTemplates, templateRefs, valueAt } from "../../contracts/workflows";
import type { PlannedStep } from "../../durable-objects/workflow-hooks";
import { assertWithinQuota, quotaUsage } from "../accounts/credits";
import { grants } from "../auth/permissions";
import type { Principal } from "../auth/principal";
import { actorOf } from "../auth/principal";
import { ROUTE_ACCESS } from "../auth/route-access";
import type { Db } from "../db/client";
import type { Env } from "../env";
import { ApiError, forbidden, validationError, type ErrorDetail } from "../errors";
import { checkWebhookUrl, parseCreateRequest, parseCreateRequestExcusing } from "../jobs/create";
import { workerService } from "../services/index";
import { pipelineFor } from "../services/pipelines";

/** The trigger fields a template may name (`{{trigger.key}}`). */
const TRIGGER_FIELDS = ["connectionId", "bucket", "key", "versionId", "eTag", "size", "eventName", "eventTime"] as const;

export interface WorkflowPlan {
  steps: PlannedStep[];
  /** Credits the whole workflow needs, per meter: what each step's create will charge. */
  credits: Partial<Record<QuotaMeter, number>>;
}

export interface PlanContext {
  env: Env;
  db: Db;
  principal: Principal;
  settings: Settings;
}

/**
 * A workflow checked whole before anything runs (docs/api.md "Workflows", order of checks): the step
 * graph (ids, dependencies, templates, no cycle), variables and the trigger filled in, every step's
 * body against its service's contract, the permissions each step's service needs, every reference a
 * step names outright (a step that waits for another is checked when its job is made), that each
 * service is built here, and the credits of all steps together against the plan. Nothing is charged.
 */
export async function planWorkflow(
  ctx: PlanContext,
  steps: readonly WorkflowStep[],
  variables: Readonly<Record<string, string>>,
  trigger: WorkflowTrigger | null,
): Promise<WorkflowPlan> {
  const planned = stepGraph(steps, variables, trigger);
  const credits: Partial<Record<QuotaMeter, number>> = {};
  for (const [i, p] of planned.entries()) {
    const quoted = await within(i, () => checkStep(ctx, p));
    const meter = workerService(p.body["serviceType"] as never).meter;
    if (meter) credits[meter] = (credits[meter] ?? 0) + quoted;
  }
  await assertCredits(ctx, credits);
  return { steps: planned, credits };
}

/**
 * The steps as a graph: ids unique, every dependency and `{{step.…}}` naming another step (each such
 * template adds a dependency), variables and trigger fields known, no cycle; variables and the
 * trigger filled in. `lenient` (a preset being saved) lets `{{vars.…}}` and `{{trigger.…}}` stand.
 */
export function stepGraph(
  steps: readonly WorkflowStep[],
  variables: Readonly<Record<string, string>>,
  trigger: WorkflowTrigger | null,
  lenient = false,
): PlannedStep[] {
  const ids = new Set<string>();
  steps.forEach((s, i) => {
    if (ids.has(s.id)) throw validationError(`step id ${s.id} is used twice`, [{ path: `steps.${i}.id`, issue: "duplicateStepId" }]);
    ids.add(s.id);
  });

  const planned = steps.map((s, i): PlannedStep => {
    const body: Record<string, unknown> = { serviceType: s.serviceType, input: s.input };
    if (s.webhookUrl !== undefined) body["webhookUrl"] = s.webhookUrl;
    if (s.userMetadata !== undefined) body["userMetadata"] = s.userMetadata;
    const deps = new Set(s.dependsOn ?? []);
    for (const d of deps) {
      if (!ids.has(d) || d === s.id)
        throw validationError(`step ${s.id} depends on ${d === s.id ? "itself" : `an unknown step ${d}`}`, [
          { path: `steps.${i}.dependsOn`, issue: `unknownStep:${d}` },
        ]);
    }
    for (const ref of templateRefs(body)) {
      const at = `steps.${i}.${ref.at}`;
      if (ref.root === "vars") {
        if (!lenient && variables[ref.path] === undefined)
          throw validationError(`step ${s.id} uses {{vars.${ref.path}}}, and no variable ${ref.path} was given`, [
            { path: `variables.${ref.path}`, issue: "missingVariable" },
          ]);
      } else if (ref.root === "trigger") {
        if (!trigger && !lenient)
          throw validationError(`step ${s.id} uses {{trigger.${ref.path}}}: only a workflow an upload started has a trigger`, [
            { path: at, issue: "noTrigger" },
          ]);
        if (!(TRIGGER_FIELDS as readonly string[]).includes(ref.path))
          throw validationError(`{{trigger.${ref.path}}} is not a trigger field (${TRIGGER_FIELDS.join(", ")})`, [
            { path: at, issue: "unknownTemplate" },
          ]);
      } else if (!ids.has(ref.root) || ref.root === s.id) {
        throw validationError(`{{${ref.root}.${ref.path}}} names no earlier step`, [{ path: at, issue: `unknownStep:${ref.root}` }]);
      } else {
        deps.add(ref.root);
      }
    }
    const filled = fillTemplates(body, (root, path) =>
      root === "vars" ? variables[path] : root === "trigger" && trigger ? (valueAt(trigger, path) ?? "") : undefined,
    ) as Record<string, unknown>;
    return { id: s.id, dependsOn: [...deps], body: filled };
  });
  refuseCycles(planned);

  return planned;
}

/** A preset's steps as far as they can be checked before a workflow fills them: the graph, and each step with no template parsed whole. */
export function checkPresetSteps(steps: readonly WorkflowStep[]): void {
  stepGraph(steps, {}, null, true).forEach((p, i) => {
    if (templateRefs(p.body).length === 0) void withinSync(i, () => parseCreateRequest(p.body));
  });
}

function withinSync<T>(i: number, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw underStep(i, err);
  }
}

/** One step's permissions, body, pipeline and references; answers the credits its create will charge. */
async function checkStep(ctx: PlanContext, p: PlannedStep): Promise<number> {
  const serviceType = String(p.body["serviceType"]);
  const needs = (ROUTE_ACCESS["POST /v1/jobs"].byServiceType as Partial<Record<string, Parameters<typeof grants>[1]>>)[serviceType];
  if (needs && !grants(ctx.principal.permissions, needs))
    throw forbidden(`this key lacks the ${needs} permission a ${serviceType} step needs`);
  // A field that still holds a template is checked when its job is made, with the value in place.
  const templated = new Set(templateRefs(p.body).map((r) => r.at));
  const req = parseCreateRequestExcusing(p.body, (path) => templated.has(path));
  if (req) checkWebhookUrl(req.webhookUrl, ctx.settings, ctx.env.ENVIRONMENT);
  const type = req?.serviceType ?? (serviceType as ServiceType);
  if (!pipelineFor(type, ctx.settings, ctx.env))
    throw new ApiError("serviceNotAvailable", `service type ${type} is not available on this deployment yet`, [
      { path: "serviceType", issue: `serviceNotAvailable:${type}` },
    ]);
  const service = workerService(type);
  const input = (req?.input ?? p.body["input"]) as never;
  if (!req || templated.size > 0) return quote(service, input, ctx);
  const actor = actorOf(ctx.principal);
  const resolved = await service.resolve(
    {
      env: ctx.env,
      db: ctx.db,
      projectId: ctx.principal.projectId as string,
      plan: ctx.principal.plan,
      settings: ctx.settings,
      actor: { kind: actor.kind, id: actor.userId ?? ctx.principal.keyId, label: actor.label },
    },
    input,
  );
  return resolved.credits;
}

/** What a step will be charged, from its input alone; an input not yet whole (templates) is charged as the service's usual one credit. */
function quote(service: ReturnType<typeof workerService>, input: never, ctx: PlanContext): number {
  const usual = service.meter ? 1 : 0;
  try {
    return service.quote ? service.quote(input, ctx.settings, ctx.principal.plan) : usual;
  } catch {
    return usual;
  }
}

/** A step's refusal, its details' paths under `steps.<i>` so the client sees which step. */
async function within<T>(i: number, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw underStep(i, err);
  }
}

function underStep(i: number, err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  const details: ErrorDetail[] = err.details.map((d) => ({ ...d, path: `steps.${i}.${d.path}` }));
  return new ApiError(
    err.code,
    `steps[${i}]: ${err.message}`,
    details.length ? details : [{ path: `steps.${i}`, issue: err.code }],
    err.metadata,
    err.headers,
  );
}

function refuseCycles(steps: readonly PlannedStep[]): void {
  const indegree = new Map(steps.map((s) => [s.id, s.dependsOn.length]));
  const ready = steps.filter((s) => s.dependsOn.length === 0).map((s) => s.id);
  let seen = 0;
  for (let id = ready.pop(); id !== undefined; id = ready.pop()) {
    seen += 1;
    for (const s of steps)
      if (s.dependsOn.includes(id)) {
        const n = (indegree.get(s.id) ?? 0) - 1;
        indegree.set(s.id, n);
        if (n === 0) ready.push(s.id);
      }
  }
  if (seen < steps.length) {
    const stuck = steps.filter((s) => (indegree.get(s.id) ?? 0) > 0).map((s) => s.id);
    throw validationError(`the steps wait for each other in a cycle: ${stuck.join(", ")}`, [{ path: "steps", issue: "dependencyCycle" }]);
  }
}

/** Every meter's credits together against what the plan has left this period (nothing is charged here). */
async function assertCredits(ctx: PlanContext, credits: Partial<Record<QuotaMeter, number>>): Promise<void> {
  const p = ctx.principal;
  for (const [meter, amount] of Object.entries(credits) as Array<[QuotaMeter, number]>) {
    if (amount <= 0) continue;
    const usage = await quotaUsage(ctx.env.DB, ctx.settings, p.workspaceId, p.plan as Plan, meter);
    try {
      assertWithinQuota(usage, amount);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      throw new ApiError(
        err.code,
        `${err.message} (the whole workflow)`,
        [{ path: "steps", issue: `quotaExceeded:${meter}` }],
        err.metadata,
        err.headers,
      );
    }
  }
}
