/**
 * The seam between the thumbnail pipeline and whatever makes a cover image. Hosted backends are
 * text-to-image models prompted from the transcript; the local backend is a compositor (best frame,
 * face-aware crop, title set in real fonts) and says so: `kind` is recorded on every thumbnail so a
 * composed cover is never presented as an AI image.
 */
export interface CoverRequest {
  /** Output size in pixels (both multiples of 16, validated at create). */
  width: number;
  height: number;
  /** Prompt for text-to-image models, built from the transcript's title and keywords. */
  prompt: string;
  /** A short title for covers that set text (the compositor). */
  title: string;
  /**
   * Candidate frames, best first (JPEG files), for engines that compose from the video. Face boxes
   * are normalised to the frame (0..1, origin top left), as vision engines report them.
   */
  frames: readonly { path: string; t: number; faces: readonly { x: number; y: number; width: number; height: number }[] }[];
  /** Variant number (0-based): engines vary seed or layout by it so covers differ. */
  variant: number;
  signal: AbortSignal;
}

export interface Cover {
  /** JPEG bytes at exactly width × height. */
  jpeg: Uint8Array;
  /** What the engine did, for the record (seed, frame time, layout). */
  details: Record<string, unknown>;
}

export interface ImageEngine {
  readonly engine: string;
  readonly model: string;
  /** `generative` for text-to-image models; `compositor` for the local designed cover. */
  readonly kind: "generative" | "compositor";
  generate(req: CoverRequest): Promise<Cover>;
}

export type ImageEngineName = "local-compositor" | "workers-ai" | "replicate" | "openai-compatible";
export const IMAGE_ENGINE_NAMES: readonly ImageEngineName[] = ["local-compositor", "workers-ai", "replicate", "openai-compatible"];

export type { EngineEnv } from "../config";

export interface ImageEngineFactoryOptions {
  /** Upper bound for one HTTP call; the handler passes something shorter than the lease. */
  requestTimeoutMs?: number;
  /** The backend's model id, as the platform chose it (hosted backends; each has a default). */
  model?: string;
}
