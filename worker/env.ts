import type { JobDO } from "../durable-objects/job-do";
import type { DispatchMessage } from "../queues/messages";
import type { WebhookMessage } from "../queues/messages";

export interface Env {
  DB: D1Database;
  JOBS: DurableObjectNamespace<JobDO>;
  DISPATCH_QUEUE: Queue<DispatchMessage>;
  WEBHOOK_QUEUE: Queue<WebhookMessage>;
  ENVIRONMENT: string;
  /** "true" lets platform settings define test-only pipelines (tests and local experiments). */
  ALLOW_TEST_PIPELINES: string;
  /** Guards /admin/v1 (operator actions); never a customer key. */
  ADMIN_SECRET: string;
  /** Authenticates gpu-runners on /runner/v1. */
  RUNNER_TOKEN: string;
  /** base64 of 32 bytes: AES-256-GCM key for secrets at rest. */
  ENCRYPTION_KEY: string;
}

export type AppBindings = { Bindings: Env; Variables: { auth: import("./auth/principal").Principal } };
