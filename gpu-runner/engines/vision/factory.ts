import { EngineConfig, type EngineEnv } from "../config";
import type { VisionEngine } from "./interface";
import { LocalHumanEngine, localHumanConfigFromEnv } from "./local-human";

export const VISION_ENGINES = ["local-human"] as const;
export type VisionEngineName = (typeof VISION_ENGINES)[number];

/**
 * Chooses the vision engine by name (from platform settings once clips and thumbnails carry one);
 * only the local engine exists so far, hosted vision backends are not needed yet.
 *
 * Environment variables
 *   local-human   VISION_HUMAN_DIR (the @vladmandic/human package folder, default: the installed one),
 *                 VISION_WASM_DIR (tfjs-backend-wasm's dist/, default: the installed one),
 *                 VISION_MAX_FACES (20), VISION_MIN_FACE_SCORE (0.5), VISION_THREADS (2, at most
 *                 the cores: this thread and helper worker threads, each with its own models)
 */
export function createVisionEngine(name: string, env: EngineEnv): VisionEngine {
  const cfg = new EngineConfig(env, "vision");
  switch (name) {
    case "local-human":
      return new LocalHumanEngine(localHumanConfigFromEnv(env));
    default:
      throw cfg.misconfigured(`unknown vision engine ${JSON.stringify(name)} (known: ${VISION_ENGINES.join(", ")})`);
  }
}
