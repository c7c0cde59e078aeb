import { StepFailure } from "../../../contracts/step-failure";
import { EngineConfig } from "../config";
import {
  SEPARATION_ENGINE_NAMES,
  type EngineEnv,
  type SeparationEngine,
  type SeparationEngineName,
  type SeparationFactoryOptions,
} from "./interface";
import { LocalFiltersSeparationEngine } from "./local-filters";
import { DEMUCS_MODELS, REPLICATE_SEPARATION_DEFAULT_MODEL, ReplicateSeparationEngine } from "./replicate";

/**
 * Chooses the separation engine by name (the dubbing settings' choice); endpoints and secrets come
 * from the runner's environment, never from settings. The hosted backend's shared variables are read
 * by engines/config.ts.
 *
 * Environment variables
 *   local-filters        none: ffmpeg only (FFMPEG_PATH, like every media tool); records itself as
 *                        engine `ffmpeg-filters`
 *   replicate            REPLICATE_API_TOKEN (required), REPLICATE_BASE_URL (optional),
 *                        REPLICATE_POLL_INTERVAL_MS (500), REPLICATE_SEPARATION_MODEL
 *                        (`owner/name:version` of a Demucs cog with ryan5453/demucs' inputs, used when
 *                        the platform names no model; default ryan5453/demucs, version pinned),
 *                        REPLICATE_SEPARATION_DEMUCS (the weights: htdemucs (default), htdemucs_ft,
 *                        htdemucs_6s, hdemucs_mmi, mdx_q, mdx_extra_q),
 *                        SEPARATION_HTTP_TIMEOUT_MS (per attempt; default and upper bound: the
 *                        handler's, shorter than the lease), SEPARATION_HTTP_ATTEMPTS (4),
 *                        SEPARATION_HTTP_BACKOFF_MS (1000), SEPARATION_HTTP_MAX_BACKOFF_MS (20000)
 */
export function createSeparationEngine(
  name: SeparationEngineName = "local-filters",
  env: EngineEnv = {},
  opts: SeparationFactoryOptions = {},
): SeparationEngine {
  const cfg = new EngineConfig(env, "separation");
  switch (name) {
    case "local-filters":
      return new LocalFiltersSeparationEngine();
    case "replicate":
      return new ReplicateSeparationEngine({
        ...cfg.replicate(),
        model: opts.model ?? cfg.optional("REPLICATE_SEPARATION_MODEL") ?? REPLICATE_SEPARATION_DEFAULT_MODEL,
        demucs: cfg.oneOf("REPLICATE_SEPARATION_DEMUCS", DEMUCS_MODELS, "htdemucs"),
        retry: cfg.retryPolicy("SEPARATION", opts.requestTimeoutMs),
      });
    default:
      // Names arrive from settings at run time: one the runner does not know is its operator's to fix.
      throw new StepFailure(
        "engine_unavailable",
        `separation engine is not configured on this runner: unknown engine ${String(name)} (known: ${SEPARATION_ENGINE_NAMES.join(", ")})`,
        true,
      );
  }
}
