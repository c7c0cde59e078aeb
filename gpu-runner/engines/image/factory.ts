import { StepFailure } from "../../../contracts/step-failure";
import { EngineConfig } from "../config";
import { IMAGE_ENGINE_NAMES, type EngineEnv, type ImageEngine, type ImageEngineFactoryOptions } from "./interface";
import { compositorConfigFromEnv, LocalCompositorEngine } from "./local-compositor";
import { OPENAI_COMPATIBLE_IMAGE_DEFAULT_MODEL, OpenAICompatibleImageEngine } from "./openai-compatible";
import { REPLICATE_IMAGE_DEFAULT_MODEL, ReplicateImageEngine } from "./replicate";
import {
  WORKERS_AI_IMAGE_DEFAULT_MODEL,
  WORKERS_AI_IMAGE_DEFAULT_STEPS,
  WORKERS_AI_IMAGE_MAX_STEPS,
  WorkersAIImageEngine,
} from "./workers-ai";

/**
 * Chooses the image engine by name (default `local-compositor`) and model (`opts.model`, the
 * platform's choice, as `transcription.speechModel` is for speech); endpoints and secrets come from
 * the runner's environment, never from settings. The hosted backends' own variables are read by
 * engines/config.ts (shared with other capabilities).
 *
 * Environment variables
 *   local-compositor     COMPOSITOR_FONT (default /usr/share/fonts/truetype/noto/NotoSans-Bold.ttf,
 *                        Debian fonts-noto-core)
 *   openai-compatible    OPENAI_COMPAT_BASE_URL (required), OPENAI_COMPAT_API_KEY (optional),
 *                        OPENAI_COMPAT_IMAGE_MODEL (default: opts.model or dall-e-3; its own
 *                        variable because OPENAI_COMPAT_MODEL names the speech model)
 *   workers-ai           CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_API_TOKEN (required), WORKERS_AI_BASE_URL,
 *                        WORKERS_AI_IMAGE_STEPS (1–8, default 4); model default
 *                        @cf/black-forest-labs/flux-1-schnell
 *   replicate            REPLICATE_API_TOKEN (required), REPLICATE_BASE_URL,
 *                        REPLICATE_POLL_INTERVAL_MS (500); model default black-forest-labs/flux-schnell
 *   all network engines  IMAGE_HTTP_TIMEOUT_MS (per attempt; default and upper bound: the
 *                        handler's), IMAGE_HTTP_ATTEMPTS (4), IMAGE_HTTP_BACKOFF_MS (1000),
 *                        IMAGE_HTTP_MAX_BACKOFF_MS (20000)
 */
export function createImageEngine(name: string | undefined, env: EngineEnv, opts: ImageEngineFactoryOptions = {}): ImageEngine {
  const cfg = new EngineConfig(env, "image");
  switch (name ?? "local-compositor") {
    case "local-compositor":
      return new LocalCompositorEngine(compositorConfigFromEnv(env));
    case "openai-compatible":
      return new OpenAICompatibleImageEngine({
        ...cfg.openAICompatible(),
        model: cfg.optional("OPENAI_COMPAT_IMAGE_MODEL") ?? opts.model ?? OPENAI_COMPATIBLE_IMAGE_DEFAULT_MODEL,
        retry: cfg.retryPolicy("IMAGE", opts.requestTimeoutMs),
      });
    case "workers-ai":
      return new WorkersAIImageEngine({
        ...cfg.workersAI(),
        model: opts.model ?? WORKERS_AI_IMAGE_DEFAULT_MODEL,
        steps: Math.min(WORKERS_AI_IMAGE_MAX_STEPS, cfg.positiveInt("WORKERS_AI_IMAGE_STEPS", WORKERS_AI_IMAGE_DEFAULT_STEPS)),
        retry: cfg.retryPolicy("IMAGE", opts.requestTimeoutMs),
      });
    case "replicate":
      return new ReplicateImageEngine({
        ...cfg.replicate(),
        model: opts.model ?? REPLICATE_IMAGE_DEFAULT_MODEL,
        retry: cfg.retryPolicy("IMAGE", opts.requestTimeoutMs),
      });
    default:
      // Retryable like any unavailable engine: a newer runner may know the name.
      throw new StepFailure(
        "engine_unavailable",
        `image engine ${name} is not known on this runner (known: ${IMAGE_ENGINE_NAMES.join(", ")})`,
        true,
      );
  }
}
