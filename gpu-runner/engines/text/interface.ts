import type { Segment, Speaker, VisualChunk } from "../../../contracts/transcript";
import type { GeneratedBy, MetadataDraft, SummaryDraft } from "../../../contracts/understanding";

/**
 * The seam between the `metadata` and `summarization` services and whatever writes about a
 * transcript. The local engine (`local-extractive`) only selects and arranges the transcript's own
 * words by documented methods (TextRank sentences, keyphrases, TextTiling chapters, IAB matching);
 * hosted language models (Workers AI, Replicate, an OpenAI-compatible server on the GPU box) are
 * asked for a JSON object validated by the same zod schemas (contracts/understanding.ts) and asked
 * once more when the answer does not validate. Every draft is recorded with `generatedBy`.
 */
export interface TextDocument {
  textSourceId: string;
  /** BCP 47 / ISO 639-1 as the transcript records it. */
  language: string;
  durationSec: number;
  /** The transcript's current `segments` layer (words optional). */
  segments: readonly Segment[];
  /** Its speakers with the names people gave them, when it was diarized (segments then carry `speaker`). */
  speakers?: readonly Speaker[];
}

export interface MetadataRequest {
  doc: TextDocument;
  signal: AbortSignal;
}

export interface SummaryRequest {
  doc: TextDocument;
  /** The visual chunks `video_analysis` stored with the transcript (empty when there were none). */
  visualChunks: readonly VisualChunk[];
  signal: AbortSignal;
}

export interface TextEngine {
  readonly generatedBy: GeneratedBy;
  metadata(req: MetadataRequest): Promise<MetadataDraft>;
  summarize(req: SummaryRequest): Promise<SummaryDraft>;
}

export type TextEngineName = "local-extractive" | "workers-ai" | "replicate" | "openai-compatible";
export const TEXT_ENGINE_NAMES: readonly TextEngineName[] = ["local-extractive", "workers-ai", "replicate", "openai-compatible"];

export type { EngineEnv } from "../config";

export interface TextEngineFactoryOptions {
  /** Upper bound for one HTTP call; the handler passes something shorter than the lease. */
  requestTimeoutMs?: number;
  /** The backend's model id (hosted backends each have a default). */
  model?: string;
}
