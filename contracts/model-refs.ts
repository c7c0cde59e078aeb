import { z } from "zod";
import { StepFailure } from "./step-failure";

/**
 * Model references: what platform settings and requests may name as a hosted engine's model, and
 * how a reference becomes part of a provider's API path. A reference reaches the provider with the
 * operator's token, so it is never pasted into a URL as it comes: each provider's shape is checked
 * and every path segment is escaped on its own, so `x/../../deployments/o/n` or `a%2F..` can never
 * name another API route (URL normalisation resolves `..` before the request leaves).
 */

/** One path segment of a model id: a letter or digit first (never `.` or `..`), then `A-Z a-z 0-9 . _ -`. */
const SEGMENT = "[A-Za-z0-9][A-Za-z0-9._-]{0,99}";

/**
 * Any provider's model id as platform settings hold it: `tts-1`, `llama3.1:8b`, `BAAI/bge-reranker-base`,
 * `owner/name:version` (Replicate), `@cf/meta/llama-3.1-8b-instruct` (Workers AI).
 */
export const MODEL_ID = new RegExp(`^@?${SEGMENT}(?:/${SEGMENT})*(?::[A-Za-z0-9._-]{1,128})?$`);

export const ModelIdSchema = z
  .string()
  .max(256)
  .regex(MODEL_ID, { message: "must be a model id: letters, digits, . _ - in /-separated parts, an optional @ before and :tag after" });

/** A model reference that does not have its provider's shape: the job cannot run as configured, and a retry would not help. */
export class InvalidModelRef extends StepFailure {
  constructor(provider: string, model: string, shape: string) {
    super("processing_failed", `${provider} model reference ${JSON.stringify(model.slice(0, 200))} is not ${shape}`, false);
  }
}

const REPLICATE_REF = new RegExp(`^(${SEGMENT})/(${SEGMENT})(?::([A-Za-z0-9._-]{1,128}))?$`);

/**
 * Replicate: `owner/name:version` runs that version (`POST /predictions`, the version in the body),
 * `owner/name` the model's latest (`POST /models/{owner}/{name}/predictions`, each part escaped).
 */
export function replicatePrediction(model: string): { path: string; version?: string } {
  const m = REPLICATE_REF.exec(model);
  if (!m) throw new InvalidModelRef("replicate", model, "owner/name or owner/name:version");
  const [, owner, name, version] = m as unknown as [string, string, string, string | undefined];
  return version
    ? { path: "/predictions", version }
    : { path: `/models/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/predictions` };
}

const WORKERS_AI_REF = new RegExp(`^@([a-z]{1,10})/(${SEGMENT})/(${SEGMENT})$`);

/** Workers AI: `@cf/owner/name` (or `@hf/…`) run at `/accounts/{account}/ai/run/@cf/{owner}/{name}`, each part escaped. */
export function workersAiRunPath(accountId: string, model: string): string {
  const m = WORKERS_AI_REF.exec(model);
  if (!m) throw new InvalidModelRef("workers-ai", model, "@cf/owner/name");
  const [, namespace, owner, name] = m as unknown as [string, string, string, string];
  return `/accounts/${encodeURIComponent(accountId)}/ai/run/@${namespace}/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}

/**
 * The hosted speech synthesis engines' own models, used when platform settings name none: the
 * runner's factory (gpu-runner/engines/synthesis) runs them, and the Worker names them among the
 * models a dubbing request may choose.
 */
export const SPEECH_SYNTHESIS_DEFAULT_MODELS = {
  replicate: "lucataco/xtts-v2:49ff6cfa14bd4e7f80f62e2279f82f23dfc2e7970f825f8db5599f8a6213c009",
  "openai-compatible": "gpt-4o-mini-tts",
} as const;

export type HostedSpeechEngine = keyof typeof SPEECH_SYNTHESIS_DEFAULT_MODELS;
export const HOSTED_SPEECH_ENGINES = Object.keys(SPEECH_SYNTHESIS_DEFAULT_MODELS) as HostedSpeechEngine[];
