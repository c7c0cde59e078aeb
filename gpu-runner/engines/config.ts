import { StepFailure } from "../../contracts/step-failure";
import { DEFAULT_RETRY, type RetryPolicy } from "./http";
import { REPLICATE_DELIVERY_HOSTS, type OutputFileHosts } from "./output-files";

/**
 * Configuration shared by every engine factory. Platform settings choose the engine and model;
 * endpoints and secrets come from the runner's environment, never from settings, so operators can
 * change engines without secrets passing through the API. A missing or malformed variable is an
 * `engine_unavailable` failure, retryable: another runner (or this one, once its operator fixes the
 * environment) may have it.
 *
 * Hosted backends are configured once for every capability:
 *   openai-compatible    OPENAI_COMPAT_BASE_URL (required, http(s)), OPENAI_COMPAT_API_KEY (optional)
 *   workers-ai           CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_API_TOKEN (required),
 *                        WORKERS_AI_BASE_URL (default https://api.cloudflare.com/client/v4)
 *   replicate            REPLICATE_API_TOKEN (required), REPLICATE_BASE_URL (default
 *                        https://api.replicate.com/v1), REPLICATE_POLL_INTERVAL_MS (500),
 *                        REPLICATE_DELIVERY_HOSTS (the hosts output files may come from, comma-
 *                        separated, each with its subdomains; default replicate.delivery); output
 *                        files from a loopback host only with RUNNER_ALLOW_LOOPBACK_STORAGE (local stacks)
 * and the HTTP policy per capability, `<PREFIX>_HTTP_TIMEOUT_MS` (per attempt; never longer than
 * the bound the handler derives from the lease), `<PREFIX>_HTTP_ATTEMPTS` (4),
 * `<PREFIX>_HTTP_BACKOFF_MS` (1000), `<PREFIX>_HTTP_MAX_BACKOFF_MS` (20000).
 */
export type EngineEnv = Readonly<Record<string, string | undefined>>;

export const WORKERS_AI_DEFAULT_BASE_URL = "https://api.cloudflare.com/client/v4";
export const REPLICATE_DEFAULT_BASE_URL = "https://api.replicate.com/v1";

/** Reads one capability's engine environment; every complaint names the capability. */
export class EngineConfig {
  constructor(
    readonly env: EngineEnv,
    /** `speech`, `image`, …: used in messages (`speech engine is not configured on this runner: …`). */
    readonly capability: string,
  ) {}

  misconfigured(message: string): StepFailure {
    return new StepFailure("engine_unavailable", `${this.capability} engine is not configured on this runner: ${message}`, true);
  }

  optional(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v === "" ? undefined : v;
  }

  required(name: string): string {
    const v = this.optional(name);
    if (v === undefined) throw this.misconfigured(`${name} is not set`);
    return v;
  }

  /** An http(s) URL, without trailing slashes. Required unless a default is given. */
  url(name: string, fallback?: string): string {
    const v = fallback === undefined ? this.required(name) : (this.optional(name) ?? fallback);
    let parsed: URL;
    try {
      parsed = new URL(v);
    } catch {
      throw this.misconfigured(`${name} must be an http(s) URL`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw this.misconfigured(`${name} must be an http(s) URL`);
    return v.replace(/\/+$/, "");
  }

  /** A positive integer; anything else (absent, `0`, `abc`) means the default. */
  positiveInt(name: string, fallback: number): number {
    const v = Number(this.env[name]);
    return Number.isInteger(v) && v > 0 ? v : fallback;
  }

  oneOf<const T extends string>(name: string, values: readonly T[], fallback: T): T {
    const v = this.optional(name) ?? fallback;
    if (!(values as readonly string[]).includes(v)) throw this.misconfigured(`${name} must be ${listed(values)}`);
    return v as T;
  }

  /**
   * The HTTP policy from `<prefix>_HTTP_*`. `boundMs` is the longest an attempt may take (the handler
   * derives it from the lease): it is the default timeout, and a configured timeout never exceeds it.
   */
  retryPolicy(prefix: string, boundMs?: number): RetryPolicy {
    const num = (name: string, d: number) => {
      const v = this.optional(`${prefix}_HTTP_${name}`);
      return v !== undefined && Number.isFinite(Number(v)) ? Number(v) : d;
    };
    const timeoutMs = num("TIMEOUT_MS", boundMs ?? DEFAULT_RETRY.timeoutMs);
    return {
      attempts: Math.max(1, num("ATTEMPTS", DEFAULT_RETRY.attempts)),
      baseDelayMs: num("BACKOFF_MS", DEFAULT_RETRY.baseDelayMs),
      maxDelayMs: num("MAX_BACKOFF_MS", DEFAULT_RETRY.maxDelayMs),
      timeoutMs: boundMs === undefined ? timeoutMs : Math.min(timeoutMs, boundMs),
    };
  }

  /** An OpenAI-compatible server (OpenAI itself, or speaches / vLLM / whisper.cpp on the GPU box). */
  openAICompatible(): { baseUrl: string; apiKey?: string } {
    const apiKey = this.optional("OPENAI_COMPAT_API_KEY");
    return { baseUrl: this.url("OPENAI_COMPAT_BASE_URL"), ...(apiKey ? { apiKey } : {}) };
  }

  /** Cloudflare Workers AI over its REST API. */
  workersAI(): { baseUrl: string; accountId: string; apiToken: string } {
    return {
      baseUrl: this.url("WORKERS_AI_BASE_URL", WORKERS_AI_DEFAULT_BASE_URL),
      accountId: this.required("CLOUDFLARE_ACCOUNT_ID"),
      apiToken: this.required("CLOUDFLARE_API_TOKEN"),
    };
  }

  /** Replicate's predictions API, and where its output files may be fetched from (engines/output-files.ts). */
  replicate(): { baseUrl: string; apiToken: string; pollIntervalMs: number; files: OutputFileHosts } {
    const hosts = this.optional("REPLICATE_DELIVERY_HOSTS")
      ?.split(",")
      .map((h) => h.trim())
      .filter(Boolean);
    return {
      apiToken: this.required("REPLICATE_API_TOKEN"),
      baseUrl: this.url("REPLICATE_BASE_URL", REPLICATE_DEFAULT_BASE_URL),
      pollIntervalMs: this.positiveInt("REPLICATE_POLL_INTERVAL_MS", 500),
      files: { hosts: hosts?.length ? hosts : REPLICATE_DELIVERY_HOSTS, allowLoopback: this.flag("RUNNER_ALLOW_LOOPBACK_STORAGE") },
    };
  }

  /** A boolean variable, as the runner's own configuration reads them (`true`, `1`, `yes`, `on`). */
  flag(name: string): boolean {
    return ["1", "true", "yes", "on"].includes((this.optional(name) ?? "").trim().toLowerCase());
  }
}

/** `a`, `a or b`, `a, b or c`. */
function listed(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? "") : `${values.slice(0, -1).join(", ")} or ${values.at(-1)}`;
}
