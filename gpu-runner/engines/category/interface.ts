/**
 * The seam between clip generation and whatever tells what kind of video it is. The local engine
 * scores keyword lexicons and visual cues; hosted language models (an OpenAI-compatible server,
 * Workers AI) are asked for the category behind the same interface (prompt.ts). Every result names
 * the engine and model that made it.
 */
export interface VisualSummary {
  /** Mean and maximum number of faces per sampled frame; null without vision. */
  meanFaces: number | null;
  maxFaces: number | null;
  /** Scene cuts per minute. */
  cutsPerMinute: number;
  /** Share of the source with speech. */
  speechShare: number;
  /** Distinct speakers seen (face tracks with mouth movement); null without vision. */
  speakers: number | null;
}

export interface CategoryRequest {
  text: string;
  visual: VisualSummary;
  /** Only these may be answered (the policy's `supportedCategories`). */
  categories: readonly string[];
  signal: AbortSignal;
}

export interface CategoryResult {
  category: string;
  /** 0..1. */
  confidence: number;
  /** Every category's share of the evidence, for the record. */
  scores: Record<string, number>;
}

export interface CategoryEngine {
  readonly engine: string;
  readonly model: string;
  classify(req: CategoryRequest): Promise<CategoryResult>;
}

export type CategoryEngineName = "local-lexicon" | "openai-compatible" | "workers-ai";
export const CATEGORY_ENGINE_NAMES: readonly CategoryEngineName[] = ["local-lexicon", "openai-compatible", "workers-ai"];

export type { EngineEnv } from "../config";

export interface CategoryEngineFactoryOptions {
  /** Upper bound for one HTTP call; the handler may pass something shorter than the lease. */
  requestTimeoutMs?: number;
  /** The backend's model id (hosted backends; each has a default, and OPENAI_COMPAT_CATEGORY_MODEL wins for openai-compatible). */
  model?: string;
}
