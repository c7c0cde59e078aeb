import { TRANSLATION_BACKENDS } from "../../../contracts/translation-languages";
import { StepFailure } from "../../../contracts/step-failure";
import type { Logger } from "../../log";
import { EngineConfig } from "../config";
import { ApertiumApyEngine } from "./apertium-apy";
import { ApertiumCliEngine } from "./apertium-cli";
import type { EngineEnv, TranslationEngine, TranslationEngineFactoryOptions } from "./interface";
import { OPENAI_COMPATIBLE_TRANSLATION_DEFAULT_MODEL, OpenAICompatibleTranslationEngine } from "./openai-compatible";
import { REPLICATE_TRANSLATION_DEFAULT_MODEL, ReplicateTranslationEngine } from "./replicate";
import { WORKERS_AI_TRANSLATION_DEFAULT_MODEL, WorkersAITranslationEngine } from "./workers-ai";

/**
 * Chooses the translation engine by backend name (recorded as `translationBackend`; `model` is
 * `engine.modelFor(source, target)`); endpoints and secrets come from the runner's environment,
 * never from settings. The hosted backends' own variables are read by engines/config.ts (shared
 * with other capabilities).
 *
 * Environment variables
 *   apertium             APERTIUM_APY_URL (optional): set, the apertium-apy server there (the local
 *                        stack starts one and sets it; start it on apertium-apy-modes.ts's mark-free
 *                        modes); unset, the `apertium` command on this runner (APERTIUM_COMMAND,
 *                        default `apertium`). Model: `apertium:<mode>`, e.g. `apertium:eng-spa`.
 *   workers-ai           CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_API_TOKEN (required), WORKERS_AI_BASE_URL;
 *                        model: opts.model or @cf/meta/m2m100-1.2b
 *   replicate            REPLICATE_API_TOKEN (required), REPLICATE_BASE_URL, REPLICATE_POLL_INTERVAL_MS;
 *                        model: opts.model or meta/meta-llama-3-8b-instruct
 *   openai-compatible    OPENAI_COMPAT_BASE_URL (required), OPENAI_COMPAT_API_KEY (optional),
 *                        OPENAI_COMPAT_TRANSLATION_MODEL (default: opts.model or llama3.1:8b; its own
 *                        variable because OPENAI_COMPAT_MODEL names the speech model)
 *   apy and hosted       TRANSLATION_HTTP_TIMEOUT_MS (per attempt; default and upper bound:
 *                        opts.requestTimeoutMs, else 45000), TRANSLATION_HTTP_ATTEMPTS (4),
 *                        TRANSLATION_HTTP_BACKOFF_MS (1000), TRANSLATION_HTTP_MAX_BACKOFF_MS (20000)
 *   apertium command     its run is bounded by opts.requestTimeoutMs (default 120000)
 */
export interface CreateTranslationEngineOptions extends TranslationEngineFactoryOptions {
  /** Records language-model answers asked again and Apertium batches that went one by one. */
  log?: Logger;
}

export function createTranslationEngine(
  name: string | undefined,
  env: EngineEnv = {},
  opts: CreateTranslationEngineOptions = {},
): TranslationEngine {
  const cfg = new EngineConfig(env, "translation");
  const retry = () => cfg.retryPolicy("TRANSLATION", opts.requestTimeoutMs);
  const log = opts.log ? { log: opts.log } : {};
  const languages = opts.languages ? { languages: opts.languages } : {};
  switch (name ?? "apertium") {
    case "apertium": {
      const apy = cfg.optional("APERTIUM_APY_URL");
      if (apy !== undefined) return new ApertiumApyEngine({ baseUrl: cfg.url("APERTIUM_APY_URL"), retry: retry(), ...log });
      const command = cfg.optional("APERTIUM_COMMAND");
      return new ApertiumCliEngine({
        ...(command ? { command } : {}),
        ...(opts.requestTimeoutMs ? { timeoutMs: opts.requestTimeoutMs } : {}),
        ...log,
      });
    }
    case "workers-ai":
      return new WorkersAITranslationEngine({
        ...cfg.workersAI(),
        model: opts.model ?? WORKERS_AI_TRANSLATION_DEFAULT_MODEL,
        retry: retry(),
      });
    case "replicate":
      return new ReplicateTranslationEngine({
        ...cfg.replicate(),
        model: opts.model ?? REPLICATE_TRANSLATION_DEFAULT_MODEL,
        retry: retry(),
        ...languages,
        ...log,
      });
    case "openai-compatible":
      return new OpenAICompatibleTranslationEngine({
        ...cfg.openAICompatible(),
        model: cfg.optional("OPENAI_COMPAT_TRANSLATION_MODEL") ?? opts.model ?? OPENAI_COMPATIBLE_TRANSLATION_DEFAULT_MODEL,
        retry: retry(),
        ...languages,
        ...log,
      });
    default:
      // Retryable like any unavailable engine: a newer runner may know the name.
      throw new StepFailure(
        "engine_unavailable",
        `translation engine ${name} is not known on this runner (known: ${TRANSLATION_BACKENDS.join(", ")})`,
        true,
      );
  }
}
