import type { RedactionRecord } from "../../contracts/redaction";
import type { z } from "zod";
import type { SearchGroup, SearchHit, SearchRequestSchema } from "../../contracts/catalog";
import type { Clip, ClipGenerationResult } from "../../contracts/clips";
import type { Job, JobProgressView } from "../../contracts/job";
import type { CreateJobRequest, CreateJobRequestOf } from "../../contracts/job-requests";
import type { JobStatus, ServiceType } from "../../contracts/service-types";
import type { Thumbnail } from "../../contracts/thumbnails";
import type { Segment, Speaker, VisualChunk } from "../../contracts/transcript";

/**
 * The types the client speaks, derived from the contracts' zod schemas wherever a schema exists
 * (requests: `z.infer`/`z.input` of the schemas the Worker validates with; the Job object), and
 * written here only for records the contracts do not describe as schemas (the transcript and clip
 * generation answers, the list metadata), following docs/api.md. Type imports only: the client
 * carries no zod at run time.
 */
export type { CreateWorkflowRequest, Workflow, WorkflowStatus, WorkflowStepView } from "../../contracts/workflows";
export type { Clip, CreateJobRequest, CreateJobRequestOf, Job, JobProgressView, JobStatus, SearchGroup, SearchHit, Segment, ServiceType };

/** `POST /v1/catalog/search` body as a caller writes it (`limit` and `mode` have defaults). */
export type SearchInput = z.input<typeof SearchRequestSchema>;

/** `GET /v1/jobs` query. `statuses` and `serviceTypes` are sent comma-separated. */
export interface JobFilters {
  jobId?: string;
  customerJobRef?: string;
  user?: string;
  input?: string;
  statuses?: readonly JobStatus[];
  serviceTypes?: readonly ServiceType[];
  sort?: "jobId" | "service" | "status" | "user" | "created";
  sortDir?: "asc" | "desc";
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export interface PageRequest {
  page?: number;
  /** 1–100, default 20. */
  limit?: number;
}

export interface JobPage {
  data: Job[];
  pagination: Pagination;
}

/** `resultSummary` of a completed transcription job. */
export interface TranscriptionSummary {
  textSourceId: string;
  textPreview: string;
  segmentCount: number;
  durationSec: number;
}

/** `resultSummary` of a completed clip generation job. */
export interface ClipGenerationSummary {
  clipGenerationId: string;
  clipCount: number;
  sourceDurationSec: number;
  transcriptPreview: string;
}

export type TranscriptLayer = "segments" | "glossary" | "raw" | "visual";

/** The four files a transcription writes to the customer's bucket (`input.resolvedOutputKeys`, `outputKeys`). */
export interface TranscriptOutputKeys {
  fullText: string;
  segments: string;
  srt: string;
  vtt: string;
}

/** `GET /v1/transcriptions/{transcriptionId}` (docs/api.md, "Transcriptions"). Unrequested layers are absent. */
export interface TranscriptRecord {
  transcriptionId: string;
  textSourceId: string;
  projectId: string;
  jobId: string;
  status: "pending" | "completed" | "failed";
  language: string | null;
  /** How sure the speech engine was of the language it detected (0..1), or null (an extension). */
  languageConfidence: number | null;
  durationSec: number | null;
  engine: string | null;
  model: string | null;
  revision: number;
  segmentCount: number;
  /** The current layer's speakers in order of first appearance (an extension); empty when not diarized. */
  speakers: Speaker[];
  /** What told the speakers apart, or null. */
  diarization: { engine: string; model: string } | null;
  segments?: Segment[];
  glossary?: Segment[];
  raw?: Segment[];
  visualChunks?: VisualChunk[];
  thumbnails: Thumbnail[];
  metadata: Record<string, unknown> | null;
  translation?: Record<string, Segment[]>;
  source: { connectionId: string; bucket: string; sourceKey: string } | null;
  outputKeys: TranscriptOutputKeys | null;
  /** What was redacted (entity types and places, never the values), or null (an extension: docs/api.md "Your data"). */
  redaction: RedactionRecord | null;
  /** The revision the files in the bucket hold, and whether the transcript changed since (an extension). */
  outputKeysRevision: number | null;
  outputKeysStale: boolean | null;
  createdAt: string;
  updatedAt: string;
}

/** A transcript export (`MediaJobs.transcriptions.export`): the file and what its headers say of it. */
export interface TranscriptFile {
  bytes: Uint8Array;
  /** The bytes as UTF-8 text (every format but `docx`). */
  text(): string;
  contentType: string;
  /** The name the API suggests saving it under (`Content-Disposition`), Unicode where the source's name is. */
  fileName: string | null;
  /** The transcript revision it was rendered from. */
  revision: number | null;
}

export type { ExportFormat, ExportLayer } from "../../contracts/transcript-exports";

type Nullable<T> = { [K in keyof T]: T[K] | null };

/** `GET /v1/clip-generations/{clipGenerationId}`: the analysis fields are null until the record is completed. */
export type ClipGenerationRecord = {
  clipGenerationId: string;
  projectId: string;
  jobId: string;
  textSourceId: string;
  status: "pending" | "completed" | "failed";
  outputPrefix: string;
  options: Record<string, unknown>;
  clipCount: number;
  clips: Clip[];
  createdAt: string;
  updatedAt: string;
} & Nullable<Omit<ClipGenerationResult, "clips">>;

export interface SearchResponse {
  query: string;
  mode: "hybrid" | "dense" | "sparse";
  results: SearchHit[];
  groups: SearchGroup[];
  /** collection, engines, candidates, tookMs, warnings[] … (docs/api.md, "POST /v1/catalog/search"). */
  metadata: Record<string, unknown>;
}

/** One attempt of `GET /v1/jobs/{jobId}/webhook-deliveries`. */
export interface WebhookDelivery {
  deliveryId: string;
  eventId: string;
  event: string;
  url: string;
  attempt: number;
  outcome: "delivered" | "failed" | "gave_up";
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  nextRetryAt: string | null;
  at: string;
}

/** The body the Worker posts (queues/webhook-consumer.ts, `webhookPayload`). */
export interface WebhookEvent {
  type: string;
  event: "queued" | "processing" | "cancelling" | "completed" | "failed" | "cancelled";
  eventId: string;
  occurredAt: string;
  jobId: string;
  customerJobRef: string | null;
  resultSummary?: Record<string, unknown> | null;
  job: Job;
}
