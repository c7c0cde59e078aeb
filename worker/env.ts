import type { CatalogDO } from "../durable-objects/catalog-do";
import type { JobEnv } from "../durable-objects/env";
import type { JobDurableObject } from "../durable-objects/job-do";
import type { WorkflowDurableObject } from "../durable-objects/workflow-do";
import type { Principal, RunnerIdentity } from "./auth/principal";
import type { ServerTiming } from "./http/server-timing";

export interface Env extends JobEnv {
  JOBS: DurableObjectNamespace<JobDurableObject>;
  /** One catalog object per project collection (durable-objects/catalog-do.ts): chunks, entries, FTS5, vectors. */
  CATALOG: DurableObjectNamespace<CatalogDO>;
  /** One object per workflow (durable-objects/workflow-do.ts): its steps' states and the jobs it makes. */
  WORKFLOWS: DurableObjectNamespace<WorkflowDurableObject>;
  ENVIRONMENT: string;
  /** "true" lets platform settings define test-only pipelines (tests and local experiments). */
  ALLOW_TEST_PIPELINES: string;
  /** Guards /admin/v1 (operator actions); never a customer key. */
  ADMIN_SECRET: string;
  /** base64 of 32 bytes: AES-256-GCM key for secrets at rest. */
  ENCRYPTION_KEY: string;
  /** The platform's own object storage (R2): bulk data kept out of D1 (worker/storage/blobs.ts). */
  BLOBS: R2Bucket;
  /**
   * Where catalog vectors live (worker/catalog/vector-store): `vectorize` (with the VECTORIZE binding), or
   * anything else (unset) each project's catalog object.
   */
  VECTOR_STORE?: string;
  VECTORIZE?: VectorizeIndex;
  /** Workers AI, for `catalog.embeddingEngine: workers-ai` (query embeddings). */
  AI?: Ai;
  /**
   * The embeddings server the search route embeds queries with, for `local-wink` (the local engine
   * process `npm run dev` starts) and `openai-compatible` (a server on the GPU box): its base URL and key.
   */
  EMBEDDINGS_BASE_URL?: string;
  EMBEDDINGS_API_KEY?: string;
  /** The GPU box's TEI rerank server, for `catalog.rerankEngine: tei`: its base URL (without `/rerank`) and key. */
  RERANK_BASE_URL?: string;
  RERANK_API_KEY?: string;
  /** "true" counts D1 statements per request (worker/db/query-count.ts); local benches only, never set in production. */
  COUNT_D1_QUERIES?: string;
}

/**
 * `timing` is set only on routes that answer Server-Timing (worker/http/server-timing.ts); `runner`
 * only on `/runner/v1` (a runner token, worker/auth/runner-tokens.ts).
 */
export type AppBindings = { Bindings: Env; Variables: { auth: Principal; runner: RunnerIdentity; timing?: ServerTiming } };
