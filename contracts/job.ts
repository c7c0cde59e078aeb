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

export interface JobProgressView {
  progress: ProgressEntry[];
  currentStage: string | null;
  attemptHistory: AttemptHistoryEntry[];
}
