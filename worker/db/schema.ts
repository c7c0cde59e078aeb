import { sql } from "drizzle-orm";
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { ProjectBranding } from "../../contracts/branding";
import type { DataPolicy } from "../../contracts/data-policy";
import type { RedactionRecord } from "../../contracts/redaction";
import type { Priority } from "../../contracts/service-types";
import type { Speaker } from "../../contracts/transcript";
import type { StoredTrigger } from "../../contracts/triggers";
import type { Workflow, WorkflowStep } from "../../contracts/workflows";

/**
 * The D1 schema: the single source of truth for tables. Migrations in migrations/ are generated
 * from it with `npm run db:generate`. Timestamps are ISO 8601 strings (what the API returns).
 */

export const workspaces = sqliteTable("workspaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  plan: text("plan", { enum: ["free", "pro", "enterprise"] }).notNull(),
  createdAt: text("created_at").notNull(),
});

export const projects = sqliteTable(
  "projects",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    name: text("name").notNull(),
    webhookUrl: text("webhook_url"),
    /** AES-GCM encrypted Standard Webhooks secret (`whsec_…`). */
    webhookSecretEnc: text("webhook_secret_enc").notNull(),
    /** The secret before the last rotation, still signing deliveries until `webhookSecretPreviousUntil`. */
    webhookSecretPreviousEnc: text("webhook_secret_previous_enc"),
    webhookSecretPreviousUntil: text("webhook_secret_previous_until"),
    /** Brand colour and logo for branded renders (clips' `branding` fill); null: the platform's colour, no logo. */
    branding: text("branding", { mode: "json" }).$type<ProjectBranding>(),
    /** The project's data policy as set (contracts/data-policy.ts); null or missing fields: the defaults. */
    dataPolicy: text("data_policy", { mode: "json" }).$type<Partial<DataPolicy>>(),
    /** Set when the project's deletion starts (worker/deletion/project.ts): from then on no route finds it. */
    deletionStartedAt: text("deletion_started_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("projects_workspace_name").on(t.workspaceId, t.name)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    /** Null for workspace keys. */
    projectId: text("project_id").references(() => projects.id),
    kind: text("kind", { enum: ["workspace", "project", "console"] }).notNull(),
    name: text("name").notNull(),
    /** First characters of the secret, to recognise a key in listings. */
    prefix: text("prefix").notNull(),
    secretHash: text("secret_hash").notNull().unique(),
    permissions: text("permissions", { mode: "json" }).$type<string[]>().notNull(),
    /** Console sessions only: the signed-in user. */
    userId: text("user_id"),
    userHandle: text("user_handle"),
    /** The absolute end of a console session. */
    expiresAt: text("expires_at"),
    /** Cookie sessions only (worker/auth/session.ts): the idle end, pushed on as the session is used. */
    idleExpiresAt: text("idle_expires_at"),
    /** Cookie sessions only: SHA-256 of the session's CSRF token. */
    csrfHash: text("csrf_hash"),
    createdAt: text("created_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (t) => [index("api_keys_project").on(t.projectId), index("api_keys_user").on(t.userId)],
);

/** People who sign in to the console (`usr_`). Email is unique across workspaces and stored lower-case. */
export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    email: text("email").notNull().unique(),
    name: text("name").notNull(),
    role: text("role", { enum: ["admin", "member"] }).notNull(),
    /** `pbkdf2-sha256$<iterations>$<salt>$<hash>` (worker/platform/password.ts). */
    passwordHash: text("password_hash").notNull(),
    createdAt: text("created_at").notNull(),
    disabledAt: text("disabled_at"),
  },
  (t) => [index("users_workspace").on(t.workspaceId)],
);

/** An admin's invitation to the console: the one-time token is stored only as its SHA-256. */
export const userInvitations = sqliteTable(
  "user_invitations",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    email: text("email").notNull(),
    role: text("role", { enum: ["admin", "member"] }).notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    invitedByUserId: text("invited_by_user_id"),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    acceptedAt: text("accepted_at"),
    /** Set when the inviting user is disabled: the token no longer works. */
    revokedAt: text("revoked_at"),
  },
  (t) => [index("user_invitations_workspace").on(t.workspaceId), index("user_invitations_invited_by").on(t.invitedByUserId)],
);

/**
 * Growing-delay counters (worker/platform/rate-limit.ts), e.g. sign-in attempts per client address.
 * Each row carries its rule, so one statement applies several keys' rules and the prune knows each
 * row's end. Times are epoch milliseconds.
 */
export const rateLimits = sqliteTable(
  "rate_limits",
  {
    key: text("key").primaryKey(),
    attempts: integer("attempts").notNull(),
    /** No attempt under this key is even checked before this time. */
    blockedUntil: integer("blocked_until").notNull(),
    lastAttemptAt: integer("last_attempt_at").notNull(),
    /** After this the row holds nothing (its window and its wait are over) and is pruned. */
    expiresAt: integer("expires_at").notNull(),
    freeAttempts: integer("free_attempts").notNull(),
    baseDelayMs: integer("base_delay_ms").notNull(),
    maxDelayMs: integer("max_delay_ms").notNull(),
    windowMs: integer("window_ms").notNull(),
  },
  (t) => [index("rate_limits_expires").on(t.expiresAt)],
);

export const storageConnections = sqliteTable(
  "storage_connections",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    name: text("name").notNull(),
    endpoint: text("endpoint").notNull(),
    region: text("region").notNull(),
    forcePathStyle: integer("force_path_style", { mode: "boolean" }).notNull(),
    buckets: text("buckets", { mode: "json" }).$type<string[]>().notNull(),
    accessKeyId: text("access_key_id").notNull(),
    secretAccessKeyEnc: text("secret_access_key_enc").notNull(),
    defaultOutputPrefix: text("default_output_prefix").notNull(),
    status: text("status", { enum: ["active", "inactive"] }).notNull(),
    /** Upload triggers (issue 26): a prefix of a bucket and the preset whose workflow starts for each object landing there. */
    triggers: text("triggers", { mode: "json" })
      .$type<StoredTrigger[]>()
      .notNull()
      .default(sql`'[]'`),
    /** The secret the store's event notifications are signed with (AES-GCM, like the access secret); null until triggers are set. */
    eventSecretEnc: text("event_secret_enc"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("storage_connections_project").on(t.projectId)],
);

/**
 * The queryable copy of each job. The JobDO is the authority; it rewrites this row (inside the
 * same call that changes its state) so a read after a successful write sees the write.
 */
export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    projectId: text("project_id").notNull(),
    serviceType: text("service_type").notNull(),
    status: text("status").notNull(),
    priority: text("priority").notNull(),
    customerJobRef: text("customer_job_ref"),
    /** Creator label, key name and key id joined for the `user` substring filter. */
    userSearch: text("user_search").notNull(),
    createdByLabel: text("created_by_label").notNull(),
    /** Source URL / input metadata flattened for the `input` substring filter. */
    inputSearch: text("input_search").notNull(),
    /** The full public Job object. */
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** Monotonic version from the JobDO, so an out-of-order mirror write never wins. */
    version: integer("version").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("jobs_project_created").on(t.projectId, t.createdAt),
    index("jobs_project_status").on(t.projectId, t.status),
    index("jobs_project_ref").on(t.projectId, t.customerJobRef),
  ],
);

/** Credits and quota meters per workspace and billing period (calendar month, UTC). */
export const usage = sqliteTable(
  "usage",
  {
    workspaceId: text("workspace_id").notNull(),
    period: text("period").notNull(),
    meter: text("meter").notNull(),
    used: integer("used").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.period, t.meter] })],
);

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    projectId: text("project_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    state: text("state", { enum: ["in_flight", "done"] }).notNull(),
    /** The job an in-flight create is making, written just before the JobDO is asked (so a retry can find it). */
    jobId: text("job_id"),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  // The scheduled purge finds expired keys by their expiry (worker/maintenance/expired-rows.ts).
  (t) => [primaryKey({ columns: [t.projectId, t.key] }), index("idempotency_keys_expires").on(t.expiresAt)],
);

/** Runner work waiting in its lane. A claim is one conditional UPDATE … RETURNING. */
export const runnerTasks = sqliteTable(
  "runner_tasks",
  {
    id: text("id").primaryKey(),
    jobId: text("job_id").notNull(),
    attempt: integer("attempt").notNull(),
    stepIndex: integer("step_index").notNull(),
    handler: text("handler").notNull(),
    lane: text("lane", { enum: ["high", "normal", "low"] }).notNull(),
    /** 0 = high, 1 = normal, 2 = low: claim order. */
    laneRank: integer("lane_rank").notNull(),
    state: text("state", { enum: ["available", "leased", "done", "dead"] }).notNull(),
    leaseToken: text("lease_token"),
    leaseUntil: text("lease_until"),
    runnerId: text("runner_id"),
    /** The runner token (`rnt_`) the lease was claimed with: only it may report on the task. */
    runnerTokenId: text("runner_token_id"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("runner_tasks_job_attempt_step").on(t.jobId, t.attempt, t.stepIndex),
    index("runner_tasks_claim").on(t.state, t.handler, t.laneRank, t.createdAt),
  ],
);

/**
 * A gpu-runner's credential (`rnt_`), minted by the operator (`/admin/v1/runner-tokens`): only the
 * SHA-256 of its secret is kept. A revoked token is refused on its next call. Scopes narrow what it
 * may lease: null is every lane, or every workspace.
 */
export const runnerTokens = sqliteTable("runner_tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** First characters of the secret, to recognise a token in listings. */
  prefix: text("prefix").notNull(),
  secretHash: text("secret_hash").notNull().unique(),
  lanes: text("lanes", { mode: "json" }).$type<Priority[]>(),
  workspaces: text("workspaces", { mode: "json" }).$type<string[]>(),
  createdAt: text("created_at").notNull(),
  /** Updated at most once a minute, so heartbeats do not each cost a write. */
  lastUsedAt: text("last_used_at"),
  revokedAt: text("revoked_at"),
});

export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    jobId: text("job_id").notNull(),
    projectId: text("project_id").notNull(),
    /** Standard Webhooks `webhook-id`: identical on every retry of one event. */
    eventId: text("event_id").notNull(),
    event: text("event").notNull(),
    url: text("url").notNull(),
    attempt: integer("attempt").notNull(),
    outcome: text("outcome", { enum: ["delivered", "failed", "gave_up"] }).notNull(),
    responseStatus: integer("response_status"),
    errorMessage: text("error_message"),
    durationMs: integer("duration_ms").notNull(),
    nextRetryAt: text("next_retry_at"),
    at: text("at").notNull(),
  },
  (t) => [index("webhook_deliveries_job").on(t.jobId, t.at), uniqueIndex("webhook_deliveries_event_attempt").on(t.eventId, t.attempt)],
);

/** One thumbnail run on a transcript: its object (the run's thumbnails, in order) and what counts need. */
export interface ThumbnailRunPointer {
  /** The run's job id: every thumbnailId of the run starts with it, so a redelivered run is recognised. */
  runId: string;
  key: string;
  covers: number;
  frames: number;
}

export const transcripts = sqliteTable(
  "transcripts",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    jobId: text("job_id").notNull(),
    status: text("status", { enum: ["pending", "completed", "failed"] }).notNull(),
    language: text("language"),
    /** How sure the engine was of the language it detected (0..1); null when it gives no figure. */
    languageConfidence: real("language_confidence"),
    durationSec: real("duration_sec"),
    engine: text("engine"),
    model: text("model"),
    revision: integer("revision").notNull().default(0),
    /** Legacy: set by the previous version's revision-checked edit (layers in D1); no longer written. */
    editNonce: text("edit_nonce"),
    segmentCount: integer("segment_count").notNull().default(0),
    /**
     * Which glossary the stored `glossary` layer was built with (worker/transcripts/glossary.ts
     * `glossaryStamp`); a layer whose stamp is not the project's current one is rebuilt before it is read.
     */
    glossaryStamp: text("glossary_stamp"),
    /**
     * Legacy: thumbnails appended here by the previous version. New runs land in R2, one object per
     * run, listed in `thumbnailRuns` (worker/services/thumbnail/store.ts).
     */
    thumbnails: text("thumbnails", { mode: "json" })
      .$type<unknown[]>()
      .notNull()
      .default(sql`'[]'`),
    /** Each thumbnail run's object (kind `thumbnails`) and counts, in the order the runs landed. */
    thumbnailRuns: text("thumbnail_runs", { mode: "json" })
      .$type<ThumbnailRunPointer[]>()
      .notNull()
      .default(sql`'[]'`),
    /** Legacy: the metadata record as the previous version wrote it; now the object under `metadataKey`. */
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown> | null>(),
    /** The current metadata record's object (kind `metadata`, worker/services/metadata/store.ts). */
    metadataKey: text("metadata_key"),
    translation: text("translation", { mode: "json" })
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'`),
    outputKeys: text("output_keys", { mode: "json" }).$type<Record<string, string>>(),
    /**
     * The transcript revision the files under `outputKeys` hold: the transcription writes them at the
     * revision its save sets (1), a `transcript_files` job rewrites them from a later one. Rows from
     * before this column held files only the transcription had written, hence the default.
     */
    outputKeysRevision: integer("output_keys_revision").notNull().default(1),
    /**
     * Where each layer lives: layer name → its object's key in the BLOBS bucket
     * (worker/transcripts/layers.ts). A layer missing here was written by the previous version and is
     * read from `transcript_layers` until `moveLegacyLayers` moves it.
     */
    layers: text("layers", { mode: "json" }).$type<Record<string, string>>(),
    /**
     * The current `segments` layer's speakers (contracts/speakers.ts), names included: small (at most
     * 32 by the diarization bounds, or what edits add), read with every transcript, and renamed in the
     * same revision-checked update that moves the revision. Empty when the transcript was not diarized.
     */
    speakers: text("speakers", { mode: "json" })
      .$type<Speaker[]>()
      .notNull()
      .default(sql`'[]'`),
    /** What diarized the transcript (engine and model); null: not diarized. */
    diarization: text("diarization", { mode: "json" }).$type<{ engine: string; model: string }>(),
    /** What was redacted and by what (contracts/redaction.ts), never the values; null: not redacted. */
    redaction: text("redaction", { mode: "json" }).$type<RedactionRecord>(),
    bucket: text("bucket"),
    connectionId: text("connection_id"),
    sourceKey: text("source_key"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("transcripts_project").on(t.projectId)],
);

/**
 * Legacy: transcript layers as the previous version stored them, JSON split into parts in D1. Layers
 * now live in the BLOBS bucket (`transcripts.layers` points at them); these rows are only read for a
 * layer without a pointer, and `moveLegacyLayers` (worker/transcripts/legacy-layers.ts) empties them.
 */
export type TranscriptLayerName = "raw" | "glossary" | "segments" | "visual" | "unredacted" | `translation.${string}`;

export const transcriptLayers = sqliteTable(
  "transcript_layers",
  {
    transcriptId: text("transcript_id").notNull(),
    /** `raw`, `glossary`, `segments`, `visual`, or `translation.<languageKey>` (one per translated language). */
    layer: text("layer").$type<TranscriptLayerName>().notNull(),
    part: integer("part").notNull(),
    data: text("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.transcriptId, t.layer, t.part] })],
);

export const glossaryTerms = sqliteTable(
  "glossary_terms",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    term: text("term").notNull(),
    preferred: text("preferred").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("glossary_project_term").on(t.projectId, t.term)],
);

export const platformSettings = sqliteTable("platform_settings", {
  id: integer("id").primaryKey(),
  document: text("document", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  updatedAt: text("updated_at").notNull(),
});

/**
 * Clip generation records (`clp_`): created `pending` with the job, `completed` with the runner's
 * result (layout, category, engines and every clip), `failed` when the job ends otherwise.
 */
export const clipGenerations = sqliteTable(
  "clip_generations",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    jobId: text("job_id").notNull(),
    textSourceId: text("text_source_id").notNull(),
    status: text("status", { enum: ["pending", "completed", "failed"] }).notNull(),
    /** The options as applied at create (maxClips after the plan's cap, layout, fill style, captions). */
    options: text("options", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    outputPrefix: text("output_prefix").notNull(),
    /** Legacy: the runner's result as the previous version stored it; now the object under `resultKey`. */
    result: text("result", { mode: "json" }).$type<Record<string, unknown> | null>(),
    /** The runner's result (contracts/clips.ts ClipGenerationResultSchema) once completed: its object in R2 (kind `clips`). */
    resultKey: text("result_key"),
    clipCount: integer("clip_count").notNull().default(0),
    /** The transcript revision the clips' captions come from: the one handed to the runner; null until then (or made before it was noted). */
    transcriptRevision: integer("transcript_revision"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("clip_generations_project").on(t.projectId), index("clip_generations_text_source").on(t.textSourceId)],
);

/**
 * Translation records (`trl_`): created `pending` with the job, `completed` when the runner saved
 * the translation (the segments themselves are the transcript's `translation.<languageKey>` layer),
 * `failed` when the job ends otherwise. A later translation into the same language key replaces the
 * layer; the earlier record stays readable without segments (`current: false`).
 */
export const translations = sqliteTable(
  "translations",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    jobId: text("job_id").notNull(),
    textSourceId: text("text_source_id").notNull(),
    status: text("status", { enum: ["pending", "completed", "failed"] }).notNull(),
    sourceLanguage: text("source_language").notNull(),
    targetLanguage: text("target_language").notNull(),
    languageKey: text("language_key").notNull(),
    sourceLayer: text("source_layer", { enum: ["current", "glossary", "raw"] }).notNull(),
    translationBackend: text("translation_backend").notNull(),
    model: text("model").notNull(),
    segmentCount: integer("segment_count").notNull().default(0),
    durationSec: real("duration_sec"),
    transcriptRevision: integer("transcript_revision"),
    outputKeys: text("output_keys", { mode: "json" }).$type<{ srt: string; vtt: string }>().notNull(),
    /** Glossary terms protected and any the engine dropped (contracts/services/translation.ts). */
    glossary: text("glossary", { mode: "json" }).$type<Record<string, unknown> | null>(),
    timing: text("timing", { mode: "json" }).$type<Record<string, unknown> | null>(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    completedAt: text("completed_at"),
  },
  (t) => [index("translations_project").on(t.projectId), index("translations_text_source").on(t.textSourceId, t.languageKey)],
);

/**
 * Dubbing records (`dub_`): created `pending` with the job, `completed` when the runner saved the
 * dubbing (its body in R2 under `resultKey`: artifacts, speakers, per-segment timing, engines, sync figures), `failed` when
 * the job ends otherwise.
 */
export const dubbings = sqliteTable(
  "dubbings",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    jobId: text("job_id").notNull(),
    transcriptionId: text("transcription_id").notNull(),
    translationId: text("translation_id").notNull(),
    status: text("status", { enum: ["pending", "completed", "failed"] }).notNull(),
    sourceLanguage: text("source_language").notNull(),
    targetLanguage: text("target_language").notNull(),
    languageKey: text("language_key").notNull(),
    /** The options as applied at create (defaults filled). */
    options: text("options", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    outputPrefix: text("output_prefix").notNull(),
    /** Legacy: the saved record as the previous version stored it; now the object under `resultKey`. */
    result: text("result", { mode: "json" }).$type<Record<string, unknown> | null>(),
    /** The saved record (artifacts, speakers, per-segment timing, sync figures): its object in R2 (kind `dubbing`). */
    resultKey: text("result_key"),
    /**
     * The transcript revision the dub speaks: its translation's (the text the runner read), noted when
     * it is saved; null until then, or on a dub saved before it was noted (its translation's tells).
     */
    transcriptRevision: integer("transcript_revision"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    completedAt: text("completed_at"),
  },
  (t) => [index("dubbings_project").on(t.projectId), index("dubbings_transcription").on(t.transcriptionId)],
);

/**
 * Voices (`vce_`): made from a sample by a `voice_creation` job (`origin: api`), or by a dubbing job
 * for a speaker that had no assignment (`origin: dubbing`, not charged). `spec` is the synthesis
 * engine's voice (contracts/voices.ts); `pending` until its job saves it, `failed` if it does not.
 */
export const voices = sqliteTable(
  "voices",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    name: text("name").notNull(),
    status: text("status", { enum: ["pending", "ready", "failed"] }).notNull(),
    origin: text("origin", { enum: ["api", "dubbing"] }).notNull(),
    jobId: text("job_id").notNull(),
    /** For a dubbing's voice: the diarization label it speaks for. */
    speakerLabel: text("speaker_label"),
    language: text("language").notNull(),
    sample: text("sample", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    kind: text("kind", { enum: ["profile", "clone"] }),
    engine: text("engine"),
    model: text("model"),
    spec: text("spec", { mode: "json" }).$type<Record<string, unknown> | null>(),
    referenceKey: text("reference_key"),
    sampleSpeechSec: real("sample_speech_sec"),
    /** Why the voice is what it is when a policy decided (a profile for want of consent, issue 25). */
    reason: text("reason"),
    /** The granted consent (`{ consentId, kind }`) a clone was made under. */
    consent: text("consent", { mode: "json" }).$type<{ consentId: string; kind: string } | null>(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("voices_project").on(t.projectId), uniqueIndex("voices_job_speaker").on(t.jobId, t.speakerLabel)],
);

/**
 * Summarization records (`sum_`): created `pending` with the job (with the platform's synthesis
 * configuration at create, read-only), `completed` with the runner's draft, `failed` otherwise.
 */
export const summarizations = sqliteTable(
  "summarizations",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    jobId: text("job_id").notNull(),
    textSourceId: text("text_source_id").notNull(),
    status: text("status", { enum: ["pending", "completed", "failed"] }).notNull(),
    config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** Legacy: the runner's draft as the previous version stored it; now the object under `resultKey`. */
    result: text("result", { mode: "json" }).$type<Record<string, unknown> | null>(),
    /** The runner's draft: its object in R2 (kind `summary`). */
    resultKey: text("result_key"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("summarizations_project").on(t.projectId), index("summarizations_text_source").on(t.textSourceId)],
);

/**
 * The catalog's inventory: one row per indexed transcript of a project, naming the generation
 * (indexer job) whose chunks answer searches, and the engines and models that made them.
 */
export const catalogEntries = sqliteTable(
  "catalog_entries",
  {
    projectId: text("project_id").notNull(),
    textSourceId: text("text_source_id").notNull(),
    /** The live generation: `{jobId}.{attempt}` of the indexer run whose chunks are searched. */
    generation: text("generation").notNull(),
    jobId: text("job_id").notNull(),
    chunkCount: integer("chunk_count").notNull(),
    segmentCount: integer("segment_count").notNull(),
    transcriptRevision: integer("transcript_revision").notNull(),
    language: text("language"),
    denseEngine: text("dense_engine").notNull(),
    denseModel: text("dense_model").notNull(),
    dimensions: integer("dimensions").notNull(),
    sparseEngine: text("sparse_engine").notNull(),
    indexedAt: text("indexed_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.textSourceId] })],
);

/**
 * Indexed chunks, every generation (a re-index writes the new one beside the live one, then the
 * cutover removes the old). The FTS5 table `catalog_chunks_fts` (BM25, migration 0006, custom SQL
 * because drizzle has no virtual tables) mirrors `text` by rowid through triggers.
 */
export const catalogChunks = sqliteTable(
  "catalog_chunks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    chunkId: text("chunk_id").notNull().unique(),
    projectId: text("project_id").notNull(),
    textSourceId: text("text_source_id").notNull(),
    generation: text("generation").notNull(),
    position: integer("position").notNull(),
    start: real("start").notNull(),
    end: real("end").notNull(),
    segmentIds: text("segment_ids", { mode: "json" }).$type<number[]>().notNull(),
    text: text("text").notNull(),
  },
  (t) => [index("catalog_chunks_source").on(t.projectId, t.textSourceId, t.generation)],
);

/** The local vector store (worker/catalog/vector-store/d1.ts): unit vectors as little-endian float32 blobs. */
export const catalogVectors = sqliteTable(
  "catalog_vectors",
  {
    chunkRowId: integer("chunk_row_id").primaryKey(),
    collection: text("collection").notNull(),
    textSourceId: text("text_source_id").notNull(),
    model: text("model").notNull(),
    vector: blob("vector", { mode: "buffer" }).$type<ArrayBuffer>().notNull(),
  },
  (t) => [index("catalog_vectors_collection").on(t.collection, t.model)],
);

/**
 * An `s3_presigned` job's full URLs (contracts/presigned.ts), sealed like a connection's secret:
 * the Job shows them redacted; only the runner's lease reads them. Deleted when the job ends.
 */
export const jobSecrets = sqliteTable("job_secrets", {
  jobId: text("job_id").primaryKey(),
  projectId: text("project_id").notNull(),
  /** AES-GCM sealed JSON of the runner's `presigned` grant (worker/platform/crypto.ts). */
  presignedEnc: text("presigned_enc").notNull(),
  createdAt: text("created_at").notNull(),
});

/**
 * The audit log (`aud_`): every deletion, by a person, a key or a retention policy, with what it
 * covered and what became of it. Rows hold ids and counts, never content, and outlive what they
 * describe (a project's deletion keeps them: they are the record that it happened). `pending` holds
 * what is still to be erased while `state` is `in_progress`: the scheduled sweep resumes it.
 */
export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id").notNull(),
    projectId: text("project_id"),
    action: text("action").notNull(),
    subjectType: text("subject_type").notNull(),
    subjectId: text("subject_id").notNull(),
    actorKind: text("actor_kind", { enum: ["api_key", "console", "policy"] }).notNull(),
    actorId: text("actor_id"),
    actorLabel: text("actor_label").notNull(),
    state: text("state", { enum: ["in_progress", "completed"] }).notNull(),
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    pending: text("pending", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: text("created_at").notNull(),
    completedAt: text("completed_at"),
  },
  (t) => [index("audit_events_workspace").on(t.workspaceId, t.createdAt), index("audit_events_state").on(t.state, t.createdAt)],
);

/**
 * Consents to clone a speaker's voice (`vcn_`, issue 25; contracts/voice-consent.ts). `subjectKey`
 * names the subject (a transcript's speaker, or a sample object) so a dubbing or a voice finds the
 * granted consent of its subject in one indexed read. An attestation is `granted` at once; a
 * recording is `pending` until its `voice_consent` job decides. DELETE revokes (the row stays, so
 * dubbings that cloned with it still name it).
 */
export const voiceConsents = sqliteTable(
  "voice_consents",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    kind: text("kind", { enum: ["attestation", "recording"] }).notNull(),
    status: text("status", { enum: ["pending", "granted", "refused", "revoked"] }).notNull(),
    subject: text("subject", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    subjectKey: text("subject_key").notNull(),
    /** attestation: what was stated (bounded, contracts/voice-consent.ts). */
    statement: text("statement"),
    /** Who made the record: the key (id and name) or the console user. */
    createdBy: text("created_by", { mode: "json" }).$type<{ kind: string; id: string; label: string }>().notNull(),
    /** recording: the phrase read, the recording object, the checking job and what it measured. */
    phraseId: text("phrase_id"),
    recording: text("recording", { mode: "json" }).$type<Record<string, unknown> | null>(),
    jobId: text("job_id"),
    check: text("check", { mode: "json" }).$type<Record<string, unknown> | null>(),
    reason: text("reason"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    revokedAt: text("revoked_at"),
  },
  (t) => [
    index("voice_consents_project_subject").on(t.projectId, t.subjectKey),
    index("voice_consents_job").on(t.jobId),
    // A phrase is read once: a second consent naming it cannot be written, whatever races.
    uniqueIndex("voice_consents_phrase").on(t.phraseId),
  ],
);

/** Phrases issued for recorded consents (`vcp_`): single use (`usedBy` names the consent), until `expiresAt`. */
export const consentPhrases = sqliteTable("consent_phrases", {
  id: text("id").primaryKey(),
  projectId: text("project_id").notNull(),
  text: text("text").notNull(),
  words: text("words", { mode: "json" }).$type<string[]>().notNull(),
  speakerName: text("speaker_name"),
  language: text("language").notNull(),
  createdAt: text("created_at").notNull(),
  expiresAt: text("expires_at").notNull(),
  usedBy: text("used_by"),
});

/**
 * Workflow presets (`pst_`, issue 26): a named set of steps saved per project, used by a workflow
 * create or by an upload trigger. The name is unique in its project.
 */
export const presets = sqliteTable(
  "presets",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    steps: text("steps", { mode: "json" }).$type<WorkflowStep[]>().notNull(),
    webhookUrl: text("webhook_url"),
    userMetadata: text("user_metadata", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [uniqueIndex("presets_project_name").on(t.projectId, t.name)],
);

/**
 * The queryable copy of each workflow (`wfl_`). Its WorkflowDO is the authority and rewrites this
 * row on every change, as a JobDO does its job's. `triggerKey` names the object version that
 * started it, unique, so an upload starts its workflow once however often its event is delivered.
 */
export const workflows = sqliteTable(
  "workflows",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    presetId: text("preset_id"),
    status: text("status").notNull(),
    triggerKey: text("trigger_key"),
    data: text("data", { mode: "json" }).$type<Workflow>().notNull(),
    /** Monotonic version from the WorkflowDO, so an out-of-order mirror write never wins. */
    version: integer("version").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("workflows_project").on(t.projectId, t.createdAt), uniqueIndex("workflows_trigger").on(t.triggerKey)],
);

/** Which workflow step made each job: read when a job ends, to tell its workflow. */
export const workflowJobs = sqliteTable(
  "workflow_jobs",
  {
    jobId: text("job_id").primaryKey(),
    workflowId: text("workflow_id").notNull(),
    stepId: text("step_id").notNull(),
  },
  (t) => [index("workflow_jobs_workflow").on(t.workflowId)],
);
