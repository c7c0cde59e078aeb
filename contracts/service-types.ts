import { z } from "zod";

export const SERVICE_TYPES = [
  "transcription",
  "clip_generation",
  "thumbnail",
  "metadata",
  "indexer",
  "summarization",
  "translation",
  "dubbing",
  // Beyond the spec's eight (its versioning rule allows new service types): voices from a sample.
  "voice_creation",
  // A transcript's files rewritten from its current segments (docs/api.md "Stale outputs and regenerate").
  "transcript_files",
  // Issue 25: the check of a recorded consent to clone a voice (not charged).
  "voice_consent",
] as const;
export const ServiceTypeSchema = z.enum(SERVICE_TYPES);
export type ServiceType = z.infer<typeof ServiceTypeSchema>;

export const JOB_STATUSES = ["pending", "queued", "processing", "cancelling", "completed", "failed", "cancelled"] as const;
export const JobStatusSchema = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof JobStatusSchema>;
export const TERMINAL_STATUSES: readonly JobStatus[] = ["completed", "failed", "cancelled"];
export const isTerminal = (s: JobStatus): boolean => TERMINAL_STATUSES.includes(s);

export const PRIORITIES = ["low", "normal", "high"] as const;
export const PrioritySchema = z.enum(PRIORITIES);
export type Priority = z.infer<typeof PrioritySchema>;

export const PLANS = ["free", "pro", "enterprise"] as const;
export const PlanSchema = z.enum(PLANS);
export type Plan = z.infer<typeof PlanSchema>;

/** The spec: priority is assigned from the workspace plan, never by the client. */
export const PRIORITY_BY_PLAN: Record<Plan, Priority> = { free: "low", pro: "normal", enterprise: "high" };

export const ACTOR_KINDS = ["user", "api_key", "console"] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

export const PROGRESS_EVENTS = ["started", "completed", "failed", "skipped"] as const;
export const ProgressEventSchema = z.enum(PROGRESS_EVENTS);
