/**
 * The seam between clip generation and whatever tells what kind of video it is. The local engine
 * scores keyword lexicons and visual cues; a hosted language model can sit behind the same
 * interface. Every result names the engine and model that made it.
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
  readonly name: string;
  readonly model: string;
  classify(req: CategoryRequest): Promise<CategoryResult>;
}
