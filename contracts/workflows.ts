import { z } from "zod";
import { JobErrorSchema } from "./job";
import { JobStatusSchema, ServiceTypeSchema } from "./service-types";
import { UserMetadataSchema, WebhookUrlSchema } from "./request-fields";

/**
 * Workflows (issue 26): a set of steps, each an ordinary job body with an id and the ids it waits
 * for. A string anywhere in a step's body may name a value made by an earlier step, a variable or
 * the upload that triggered the workflow: `{{transcribe.textSourceId}}`, `{{vars.language}}`,
 * `{{trigger.key}}` (docs/api.md "Workflows"). Templates are plain strings, so every step body
 * still parses with the job contract it will be created with.
 */

export const WORKFLOW_MAX_STEPS = 20;
export const STEP_ID_PATTERN = /^[a-z][a-z0-9_-]{0,39}$/;
/** Names a template may start with that are not step ids. */
export const RESERVED_TEMPLATE_ROOTS = ["vars", "trigger"] as const;

export const StepIdSchema = z
  .string()
  .regex(STEP_ID_PATTERN, { message: "a step id is 1-40 lowercase letters, digits, '-' or '_', starting with a letter" })
  .refine((id) => !(RESERVED_TEMPLATE_ROOTS as readonly string[]).includes(id), { message: "vars and trigger are reserved step ids" });

export const WorkflowStepSchema = z.strictObject({
  id: StepIdSchema,
  serviceType: ServiceTypeSchema,
  /** The job's input, checked whole against the service's contract once templates are in place. */
  input: z.record(z.string(), z.unknown()),
  dependsOn: z.array(StepIdSchema).max(WORKFLOW_MAX_STEPS).optional(),
  webhookUrl: WebhookUrlSchema.nullable().optional(),
  userMetadata: UserMetadataSchema.nullable().optional(),
});
export type WorkflowStep = z.infer<typeof WorkflowStepSchema>;

export const WorkflowStepsSchema = z
  .array(WorkflowStepSchema)
  .min(1, { message: "a workflow has at least one step" })
  .max(WORKFLOW_MAX_STEPS, { message: `a workflow has at most ${WORKFLOW_MAX_STEPS} steps` });

/** Variables a workflow fills in (`{{vars.name}}`): short strings only, so a template stays a string. */
export const WorkflowVariablesSchema = z
  .record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/), z.string().max(1024))
  .refine((v) => Object.keys(v).length <= 50, { message: "at most 50 variables" });

export const CreateWorkflowSchema = z
  .strictObject({
    steps: WorkflowStepsSchema.optional(),
    presetId: z.string().min(1).max(64).optional(),
    variables: WorkflowVariablesSchema.optional(),
    webhookUrl: WebhookUrlSchema.nullable().optional(),
    userMetadata: UserMetadataSchema.nullable().optional(),
  })
  .refine((b) => (b.steps === undefined) !== (b.presetId === undefined), {
    message: "send either steps or presetId",
    path: ["steps"],
  });
export type CreateWorkflowRequest = z.infer<typeof CreateWorkflowSchema>;

export const PresetNameSchema = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, { message: "a preset name is letters, digits, spaces, '.', '_' or '-'" });

export const PresetBodySchema = z.strictObject({
  name: PresetNameSchema,
  description: z.string().max(1000).nullable().optional(),
  steps: WorkflowStepsSchema,
  webhookUrl: WebhookUrlSchema.nullable().optional(),
  userMetadata: UserMetadataSchema.nullable().optional(),
});
export type PresetBody = z.infer<typeof PresetBodySchema>;

export const PresetSchema = z.object({
  presetId: z.string(),
  projectId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  steps: z.array(WorkflowStepSchema),
  /** `{{vars.x}}` names the preset's steps use: a workflow from it must fill each (a trigger fills none). */
  variables: z.array(z.string()),
  webhookUrl: z.string().nullable(),
  userMetadata: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Preset = z.infer<typeof PresetSchema>;

/** A step's state: `waiting` for its dependencies, then its job's status, or `skipped` when a dependency did not complete. */
export const WORKFLOW_STEP_STATUSES = ["waiting", ...JobStatusSchema.options, "skipped"] as const;
export const WorkflowStepStatusSchema = z.enum(WORKFLOW_STEP_STATUSES);
export type WorkflowStepStatus = z.infer<typeof WorkflowStepStatusSchema>;

export const WORKFLOW_STATUSES = ["running", "cancelling", "completed", "failed", "cancelled"] as const;
export const WorkflowStatusSchema = z.enum(WORKFLOW_STATUSES);
export type WorkflowStatus = z.infer<typeof WorkflowStatusSchema>;
export const isWorkflowEnded = (s: WorkflowStatus): boolean => s === "completed" || s === "failed" || s === "cancelled";

export const WorkflowStepViewSchema = z.object({
  id: z.string(),
  serviceType: ServiceTypeSchema,
  dependsOn: z.array(z.string()),
  status: WorkflowStepStatusSchema,
  jobId: z.string().nullable(),
  error: JobErrorSchema.nullable(),
  createdAt: z.string().nullable(),
  endedAt: z.string().nullable(),
});
export type WorkflowStepView = z.infer<typeof WorkflowStepViewSchema>;

/** The object (S3 event) that started a workflow through a storage connection's trigger. */
export const WorkflowTriggerSchema = z.object({
  connectionId: z.string(),
  bucket: z.string(),
  key: z.string(),
  versionId: z.string().nullable(),
  eTag: z.string().nullable(),
  size: z.number().nullable(),
  eventName: z.string(),
  eventTime: z.string().nullable(),
});
export type WorkflowTrigger = z.infer<typeof WorkflowTriggerSchema>;

export const WorkflowSchema = z.object({
  workflowId: z.string(),
  workspaceId: z.string(),
  projectId: z.string(),
  presetId: z.string().nullable(),
  status: WorkflowStatusSchema,
  steps: z.array(WorkflowStepViewSchema),
  /** Credits the workflow needs per meter, as checked against the plan at create (steps are charged as their jobs are made). */
  credits: z.record(z.string(), z.number()),
  trigger: WorkflowTriggerSchema.nullable(),
  variables: z.record(z.string(), z.string()),
  error: JobErrorSchema.nullable(),
  webhookUrl: z.string().nullable(),
  userMetadata: z.record(z.string(), z.unknown()).nullable(),
  createdByLabel: z.string(),
  cancelRequestedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  endedAt: z.string().nullable(),
});
export type Workflow = z.infer<typeof WorkflowSchema>;

// ---------------------------------------------------------------- templates

const TEMPLATE = /\{\{\s*([a-z][a-z0-9_-]*)\.([A-Za-z0-9_.]+)\s*\}\}/g;
const WHOLE_TEMPLATE = /^\{\{\s*([a-z][a-z0-9_-]*)\.([A-Za-z0-9_.]+)\s*\}\}$/;

export interface TemplateRef {
  root: string;
  path: string;
  /** Where in the step's body it stands (`input.textSourceId`, `input.textSourceIds.0`). */
  at: string;
}

/** Every `{{root.path}}` in a value, with where it stands. */
export function templateRefs(value: unknown, at = ""): TemplateRef[] {
  const out: TemplateRef[] = [];
  const stack: Array<[unknown, string]> = [[value, at]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [v, where] = item;
    if (typeof v === "string") {
      for (const m of v.matchAll(TEMPLATE)) out.push({ root: m[1] ?? "", path: m[2] ?? "", at: where });
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => stack.push([x, where ? `${where}.${i}` : String(i)]));
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) stack.push([x, where ? `${where}.${k}` : k]);
    }
  }
  return out;
}

/**
 * A value with templates filled by `lookup` (which answers undefined for a root it does not fill:
 * that template is left as written). A string that is one template whole takes the looked-up value
 * itself (a number stays a number); inside a longer string the value is written as text.
 */
export function fillTemplates(value: unknown, lookup: (root: string, path: string) => unknown): unknown {
  if (typeof value === "string") {
    const whole = WHOLE_TEMPLATE.exec(value);
    if (whole) {
      const v = lookup(whole[1] ?? "", whole[2] ?? "");
      return v === undefined ? value : v;
    }
    return value.replace(TEMPLATE, (text, root: string, path: string) => {
      const v = lookup(root, path);
      return v === undefined ? text : typeof v === "string" ? v : JSON.stringify(v);
    });
  }
  if (Array.isArray(value)) return value.map((x) => fillTemplates(x, lookup));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, fillTemplates(x, lookup)]));
  return value;
}

/** A dotted path into a plain value (`options.language`), or undefined. */
export function valueAt(value: unknown, path: string): unknown {
  let v: unknown = value;
  for (const part of path.split(".")) {
    if (!v || typeof v !== "object" || !Object.hasOwn(v, part)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}
