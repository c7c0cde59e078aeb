import { z } from "zod";
import { JobStatusSchema, PrioritySchema, ProgressEventSchema, ServiceTypeSchema } from "./service-types";

export const JobErrorSchema = z.object({ code: z.string(), message: z.string() });
export type JobError = z.infer<typeof JobErrorSchema>;

export const LastErrorSchema = z.object({ at: z.string(), message: z.string() });

export const ProgressEntrySchema = z.object({
  stage: z.string().min(1).max(64),
  event: ProgressEventSchema,
  at: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
  error: JobErrorSchema.optional(),
});
export type ProgressEntry = z.infer<typeof ProgressEntrySchema>;

export const AttemptHistoryEntrySchema = z.object({
  attempt: z.number().int(),
  failedAt: z.string(),
  error: JobErrorSchema,
  progress: z.array(ProgressEntrySchema),
});
export type AttemptHistoryEntry = z.infer<typeof AttemptHistoryEntrySchema>;

/** The Job object exactly as the spec's field table names it. */
export const JobSchema = z.object({
  jobId: z.string(),
  serviceType: ServiceTypeSchema,
  status: JobStatusSchema,
  priority: PrioritySchema,
  workspaceId: z.string(),
  projectId: z.string(),
  workspacePlan: z.string().optional(),
  input: z.record(z.string(), z.unknown()),
  resultSummary: z.record(z.string(), z.unknown()).nullable(),
  cancelRequestedAt: z.string().nullable(),
  cancelRequestedByLabel: z.string().nullable(),
  cancelRequestedByKind: z.enum(["user", "api_key", "console"]).nullable(),
  cancelRequestedByUserId: z.string().nullable(),
  cancelRequestedByApiKeyId: z.string().nullable(),
  cancelMode: z.literal("graceful").nullable(),
  sourceDisplayName: z.string().optional(),
  webhookUrl: z.string().nullable(),
  currentStage: z.string().nullable(),
  attemptCount: z.number().int(),
  lastError: LastErrorSchema.nullable(),
  error: JobErrorSchema.nullable(),
  createdByLabel: z.string(),
  createdByKind: z.enum(["user", "api_key", "console"]),
  apiKeyLabel: z.string().nullable(),
  apiKeyId: z.string(),
  isConsoleKey: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  userMetadata: z.record(z.string(), z.unknown()).nullable(),
  processingLeaseUntil: z.string().nullable(),
});
export type Job = z.infer<typeof JobSchema>;

/** What a new job is made of: who made it, for what, and when; everything else starts empty. */
export type NewJobFields = Pick<
  Job,
  | "jobId"
  | "serviceType"
  | "priority"
  | "workspaceId"
  | "projectId"
  | "workspacePlan"
  | "input"
  | "webhookUrl"
  | "createdByLabel"
  | "createdByKind"
  | "apiKeyLabel"
  | "apiKeyId"
  | "isConsoleKey"
  | "createdAt"
  | "userMetadata"
> &
  Partial<Pick<Job, "sourceDisplayName">>;

/** A job as created (`pending`): the one place that lists the fields a job starts with. */
export function newJob(f: NewJobFields): Job {
  // In the Job's own field order (JobSchema): answers and webhook payloads list them so.
  return {
    jobId: f.jobId,
    serviceType: f.serviceType,
    status: "pending",
    priority: f.priority,
    workspaceId: f.workspaceId,
    projectId: f.projectId,
    workspacePlan: f.workspacePlan,
    input: f.input,
    resultSummary: null,
    cancelRequestedAt: null,
    cancelRequestedByLabel: null,
    cancelRequestedByKind: null,
    cancelRequestedByUserId: null,
    cancelRequestedByApiKeyId: null,
    cancelMode: null,
    ...(f.sourceDisplayName !== undefined ? { sourceDisplayName: f.sourceDisplayName } : {}),
    webhookUrl: f.webhookUrl,
    currentStage: null,
    attemptCount: 0,
    lastError: null,
    error: null,
    createdByLabel: f.createdByLabel,
    createdByKind: f.createdByKind,
    apiKeyLabel: f.apiKeyLabel,
    apiKeyId: f.apiKeyId,
    isConsoleKey: f.isConsoleKey,
    createdAt: f.createdAt,
    updatedAt: f.createdAt,
    startedAt: null,
    completedAt: null,
    userMetadata: f.userMetadata,
    processingLeaseUntil: null,
  };
}

export interface JobProgressView {
  progress: ProgressEntry[];
  currentStage: string | null;
  attemptHistory: AttemptHistoryEntry[];
}
