import { z } from "zod";
import {
  CATALOG_WRITE_MAX_CHUNKS,
  CatalogCutoverResultSchema,
  CatalogRollbackResultSchema,
  CHUNK_TYPE,
  SPARSE_ENGINE,
  type DenseIdentity,
  type IndexChunk,
  type IndexerResult,
} from "../../../contracts/catalog";
import type { EmbeddingEngine } from "../../../contracts/embeddings/interface";
import type { TranscriptDocument } from "../../../contracts/runner-protocol";
import type { Settings } from "../../../contracts/settings";
import { StepFailure } from "../../../contracts/step-failure";
import type { EngineEnv } from "../../engines/config";
import { createEmbeddingEngine } from "../../engines/embeddings/factory";
import type { HandlerContext } from "../../handler";
import { requireText } from "../shared/text-document";
import { chunkSegments, sparseTerms } from "./chunk";

/**
 * The indexer's stages on the runner, one function per contract stage, each over the run's engine
 * and settings (`IndexRun`) and what the stage before it returned. The handler reports them.
 */

export type MakeEmbeddingEngine = (settings: Settings["catalog"], env: EngineEnv) => EmbeddingEngine;

export const defaultEmbeddingEngine: MakeEmbeddingEngine = (s, env) =>
  createEmbeddingEngine(s.embeddingEngine, env, { ...(s.embeddingModel ? { model: s.embeddingModel } : {}) });

/** What every stage of one run reads: the platform, the catalog settings, the dense engine and its identity. */
export interface IndexRun {
  platform: HandlerContext["platform"];
  signal: AbortSignal;
  settings: Settings["catalog"];
  engine: EmbeddingEngine;
  dense: DenseIdentity;
}

export function indexRun(
  ctx: Pick<HandlerContext, "platform" | "signal">,
  settings: Settings["catalog"],
  engine: EmbeddingEngine,
): IndexRun {
  return {
    platform: ctx.platform,
    signal: ctx.signal,
    settings,
    engine,
    dense: { engine: engine.engine, model: engine.model, dimensions: engine.dimensions },
  };
}

/** A transcript written as a new generation, waiting for the cutover. */
export interface Written {
  doc: TranscriptDocument;
  chunks: IndexChunk[];
}

/** Texts per embedding call: the backends' documented batch limits are at least this. */
const EMBED_BATCH = 32;
const WriteResultSchema = z.object({ written: z.number().int() });

export async function fetchTranscription(run: IndexRun, textSourceId: string): Promise<TranscriptDocument> {
  return requireText(await run.platform.transcript(textSourceId));
}

export function chunkTranscript(run: IndexRun, doc: TranscriptDocument): IndexChunk[] {
  const { chunkMinSeconds, chunkMaxSeconds, chunkOverlapSeconds } = run.settings;
  return chunkSegments(doc.segments, { minSeconds: chunkMinSeconds, maxSeconds: chunkMaxSeconds, overlapSeconds: chunkOverlapSeconds });
}

export const chunkDetails = (textSourceId: string, cs: IndexChunk[]) => ({
  textSourceId,
  chunks: cs.length,
  meanSeconds: cs.length ? Math.round((cs.reduce((n, c) => n + c.end - c.start, 0) / cs.length) * 10) / 10 : 0,
  chunkType: CHUNK_TYPE,
});

/** The terms BM25 will weigh, counted for the record: the catalog object tokenises the text itself as the chunks are written. */
export function embedSparse(chunks: IndexChunk[]): { tokens: number; vocabulary: number } {
  const terms = chunks.map((c) => sparseTerms(c.text));
  return { tokens: terms.reduce((n, t) => n + t.length, 0), vocabulary: new Set(terms.flat()).size };
}

export async function embedDense(run: IndexRun, chunks: IndexChunk[]): Promise<Float32Array[]> {
  const { engine, signal } = run;
  const out: Float32Array[] = [];
  for (let i = 0; i < chunks.length; i += EMBED_BATCH)
    out.push(
      ...(await engine.embed(
        chunks.slice(i, i + EMBED_BATCH).map((c) => c.text),
        signal,
      )),
    );
  if (out.length !== chunks.length)
    throw new StepFailure(
      "processing_failed",
      `${engine.engine} (${engine.model}) returned ${out.length} vectors for ${chunks.length} chunks`,
      true,
    );
  return out;
}

/** `catalog.write`, in parts: a new generation beside the live one, not live until the cutover. */
export async function writeIndex(run: IndexRun, textSourceId: string, chunks: IndexChunk[], vectors: Float32Array[]): Promise<void> {
  for (let i = 0; i < chunks.length; i += CATALOG_WRITE_MAX_CHUNKS) {
    const part = chunks.slice(i, i + CATALOG_WRITE_MAX_CHUNKS).map((c, j) => ({ ...c, vector: Array.from(vectors[i + j]!) }));
    await run.platform.call("catalog.write", { textSourceId, dense: run.dense, chunks: part }, WriteResultSchema);
  }
}

/** `catalog.cutover` per written transcript, in order: each new generation goes live, the previous one is removed. */
export async function cutover(run: IndexRun, written: readonly Written[]): Promise<IndexerResult["indexedTranscriptions"]> {
  const results: IndexerResult["indexedTranscriptions"] = [];
  for (const { doc, chunks } of written) {
    const r = await run.platform.call(
      "catalog.cutover",
      {
        textSourceId: doc.textSourceId,
        dense: run.dense,
        chunkCount: chunks.length,
        segmentCount: doc.segments.length,
        transcriptRevision: doc.revision,
        language: doc.language,
      },
      CatalogCutoverResultSchema,
    );
    results.push({ textSourceId: doc.textSourceId, segmentCount: doc.segments.length, indexedChunks: chunks.length, ...r });
  }
  return results;
}

/** `catalog.rollback`: the run's chunks are removed; the previous generations never stopped answering. */
export async function rollback(run: IndexRun, textSourceIds: string[]) {
  return run.platform.call("catalog.rollback", { textSourceIds }, CatalogRollbackResultSchema);
}

export function indexerResult(dense: DenseIdentity, indexedTranscriptions: IndexerResult["indexedTranscriptions"]): IndexerResult {
  return {
    denseEngine: dense.engine,
    denseModel: dense.model,
    dimensions: dense.dimensions,
    sparseEngine: SPARSE_ENGINE,
    chunkType: CHUNK_TYPE,
    indexedTranscriptions,
  };
}
