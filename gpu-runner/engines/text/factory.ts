import { StepFailure } from "../../../contracts/step-failure";
import type { Logger } from "../../log";
import { EngineConfig } from "../config";
import type { IabIds } from "./iab-ids";
import { TEXT_ENGINE_NAMES, type EngineEnv, type TextEngine, type TextEngineFactoryOptions } from "./interface";
import { LocalExtractiveTextEngine } from "./local-extractive";
import { OPENAI_COMPATIBLE_TEXT_DEFAULT_MODEL, OpenAICompatibleTextEngine } from "./openai-compatible";
import { REPLICATE_TEXT_DEFAULT_MODEL, ReplicateTextEngine } from "./replicate";
import { WORKERS_AI_TEXT_DEFAULT_MODEL, WorkersAITextEngine } from "./workers-ai";

/**
 * Chooses the text engine (metadata, summarization) by name and model (`opts.model`); endpoints and
 * secrets come from the runner's environment, never from settings. The hosted backends' own
 * variables are read by engines/config.ts (shared with other capabilities).
 *
 * Environment variables
 *   local-extractive     none
 *   openai-compatible    OPENAI_COMPAT_BASE_URL (required), OPENAI_COMPAT_API_KEY (optional),
 *                        OPENAI_COMPAT_TEXT_MODEL (default: opts.model or llama3.1:8b; its own
 *                        variable because OPENAI_COMPAT_MODEL names the speech model)
 *   workers-ai           CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_API_TOKEN (required), WORKERS_AI_BASE_URL;
 *                        model: opts.model or @cf/meta/llama-3.1-8b-instruct
 *   replicate            REPLICATE_API_TOKEN (required), REPLICATE_BASE_URL, REPLICATE_POLL_INTERVAL_MS;
 *                        model: opts.model or meta/meta-llama-3-8b-instruct
 *   all network engines  TEXT_HTTP_TIMEOUT_MS (per attempt; default and upper bound:
 *                        opts.requestTimeoutMs, else 45000), TEXT_HTTP_ATTEMPTS (4),
 *                        TEXT_HTTP_BACKOFF_MS (1000), TEXT_HTTP_MAX_BACKOFF_MS (20000)
 */
export interface CreateTextEngineOptions extends TextEngineFactoryOptions {
  /** The IAB taxonomy answers are checked against (default: the official file's copy, iab-ids.ts). */
  iab?: IabIds;
  /** Records answers asked again and drafts adjusted (cut strings, dropped ids). */
  log?: Logger;
}

export function createTextEngine(name: string | undefined, env: EngineEnv = {}, opts: CreateTextEngineOptions = {}): TextEngine {
  const cfg = new EngineConfig(env, "text");
  const shared = () => ({
    retry: cfg.retryPolicy("TEXT", opts.requestTimeoutMs),
    ...(opts.iab ? { iab: opts.iab } : {}),
    ...(opts.log ? { log: opts.log } : {}),
  });
  switch (name ?? "local-extractive") {
    case "local-extractive":
      return new LocalExtractiveTextEngine();
    case "openai-compatible":
      return new OpenAICompatibleTextEngine({
        ...cfg.openAICompatible(),
        model: cfg.optional("OPENAI_COMPAT_TEXT_MODEL") ?? opts.model ?? OPENAI_COMPATIBLE_TEXT_DEFAULT_MODEL,
        ...shared(),
      });
    case "workers-ai":
      return new WorkersAITextEngine({ ...cfg.workersAI(), model: opts.model ?? WORKERS_AI_TEXT_DEFAULT_MODEL, ...shared() });
    case "replicate":
      return new ReplicateTextEngine({ ...cfg.replicate(), model: opts.model ?? REPLICATE_TEXT_DEFAULT_MODEL, ...shared() });
    default:
      // Retryable like any unavailable engine: a newer runner may know the name.
      throw new StepFailure(
        "engine_unavailable",
        `text engine ${name} is not known on this runner (known: ${TEXT_ENGINE_NAMES.join(", ")})`,
        true,
      );
  }
}
