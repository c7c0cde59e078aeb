import type { Settings } from "../../../contracts/settings";
import { StepFailure } from "../../../contracts/step-failure";
import { EngineConfig } from "../config";
import { CATEGORY_ENGINE_NAMES, type CategoryEngine, type CategoryEngineFactoryOptions, type EngineEnv } from "./interface";
import { LocalLexiconCategoryEngine } from "./local-lexicon";
import { OPENAI_COMPATIBLE_CATEGORY_DEFAULT_MODEL, OpenAICompatibleCategoryEngine } from "./openai-compatible";
import { WORKERS_AI_CATEGORY_DEFAULT_MODEL, WorkersAICategoryEngine } from "./workers-ai";

/**
 * Chooses the category engine by name (platform settings `clips.categoryEngine`, default
 * `local-lexicon`) and model (`opts.model`); endpoints and secrets come from the runner's
 * environment, never from settings. The hosted backends' own variables are read by
 * engines/config.ts (shared with other capabilities).
 *
 * Environment variables
 *   local-lexicon        none
 *   openai-compatible    OPENAI_COMPAT_BASE_URL (required), OPENAI_COMPAT_API_KEY (optional),
 *                        OPENAI_COMPAT_CATEGORY_MODEL (default: opts.model or gpt-4o-mini; its own
 *                        variable because OPENAI_COMPAT_MODEL names the speech model)
 *   workers-ai           CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_API_TOKEN (required), WORKERS_AI_BASE_URL;
 *                        model: opts.model or @cf/meta/llama-3.1-8b-instruct
 *   all network engines  CATEGORY_HTTP_TIMEOUT_MS (per attempt; default and upper bound:
 *                        opts.requestTimeoutMs, else 45000), CATEGORY_HTTP_ATTEMPTS (4),
 *                        CATEGORY_HTTP_BACKOFF_MS (1000), CATEGORY_HTTP_MAX_BACKOFF_MS (20000)
 */
export function createCategoryEngine(
  name: Settings["clips"]["categoryEngine"] | string | undefined,
  env: EngineEnv = {},
  opts: CategoryEngineFactoryOptions = {},
): CategoryEngine {
  const cfg = new EngineConfig(env, "category");
  switch (name ?? "local-lexicon") {
    case "local-lexicon":
      return new LocalLexiconCategoryEngine();
    case "openai-compatible":
      return new OpenAICompatibleCategoryEngine({
        ...cfg.openAICompatible(),
        model: cfg.optional("OPENAI_COMPAT_CATEGORY_MODEL") ?? opts.model ?? OPENAI_COMPATIBLE_CATEGORY_DEFAULT_MODEL,
        retry: cfg.retryPolicy("CATEGORY", opts.requestTimeoutMs),
      });
    case "workers-ai":
      return new WorkersAICategoryEngine({
        ...cfg.workersAI(),
        model: opts.model ?? WORKERS_AI_CATEGORY_DEFAULT_MODEL,
        retry: cfg.retryPolicy("CATEGORY", opts.requestTimeoutMs),
      });
    default:
      // Retryable like any unavailable engine: a newer runner may know the name.
      throw new StepFailure(
        "engine_unavailable",
        `category engine ${name} is not known on this runner (known: ${CATEGORY_ENGINE_NAMES.join(", ")})`,
        true,
      );
  }
}
