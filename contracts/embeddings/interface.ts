import { StepFailure } from "../step-failure";

/**
 * Text embeddings, shared by the indexer (gpu-runner) and the catalog search route (Worker), so a
 * query and the documents it is compared with are always embedded by the same engine and model.
 * Web-platform code only: this folder compiles for workerd and for Node.
 *
 * Backends: `local-wink` (mean-pooled word vectors, in the runner's process or, for the Worker,
 * through the local engine process's OpenAI-compatible endpoint), `workers-ai` (BAAI bge models,
 * through the AI binding or the REST API) and `openai-compatible` (`POST /v1/embeddings`: OpenAI,
 * TEI, vLLM, Ollama).
 *
 * Rules every engine keeps:
 * - one vector per text, in the order given, each of `dimensions` float32 components and unit length,
 *   so cosine similarity is a dot product;
 * - a text with nothing to embed (blank, or no word the model knows) gives the zero vector, and blank
 *   texts are never sent to a backend (OpenAI and Workers AI reject empty strings). The zero vector's
 *   cosine with anything, itself included, is 0: it never outranks a real match, and a store may skip
 *   it altogether;
 * - failures name the engine and model (`workers-ai (@cf/baai/bge-base-en-v1.5): HTTP 503 …`), and an
 *   aborted signal rejects with the signal's reason.
 */
export interface EmbeddingEngine {
  readonly engine: string;
  readonly model: string;
  /** Components per vector. An OpenAI-compatible server of an unlisted model reports 0 until its first answer. */
  readonly dimensions: number;
  /** One unit-length vector per text, same order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export type EmbeddingEngineName = "local-wink" | "workers-ai" | "openai-compatible";
export const EMBEDDING_ENGINE_NAMES: readonly EmbeddingEngineName[] = ["local-wink", "workers-ai", "openai-compatible"];

/**
 * Texts per request (or, in-process, per slice between yields to the event loop), per backend:
 * - `workers-ai`: 100, the bge models' `text` array `maxItems` (Cloudflare's model schema);
 * - `openai-compatible`: 32. OpenAI takes up to 2048 inputs (and 300,000 tokens) per request, but
 *   Hugging Face TEI refuses more than its `--max-client-batch-size`, 32 by default; 32 fits every
 *   server named above. The client's `maxBatch` option raises it for a server known to take more;
 * - `local-wink`: 256 texts between yields to the event loop (about 13 ms for 100-word chunks), so a
 *   runner embedding thousands of chunks still answers its heartbeats and notices a cancel.
 */
export const MAX_BATCH: Readonly<Record<EmbeddingEngineName, number>> = {
  "local-wink": 256,
  "workers-ai": 100,
  "openai-compatible": 32,
};

/** What a stored vector was made by: recorded beside every vector, checked before comparing. */
export interface EmbeddingIdentity {
  engine: string;
  model: string;
  dimensions: number;
}

export function identityOf(engine: EmbeddingEngine): EmbeddingIdentity {
  return { engine: engine.engine, model: engine.model, dimensions: engine.dimensions };
}

/**
 * Whether vectors made by `a` and `b` may be compared: same model and same dimensions. The engine is
 * not compared, because the same model reached two ways (local-wink in the runner's process and
 * through the local engine process; one model id on two OpenAI-compatible servers) gives the same
 * vectors.
 */
export function sameSpace(a: EmbeddingIdentity, b: EmbeddingIdentity): boolean {
  return a.model === b.model && a.dimensions === b.dimensions && a.dimensions > 0;
}

/** Squared length below which a vector counts as zero. */
const ZERO_EPSILON = 1e-24;
/**
 * A vector whose squared length is this close to 1 is already unit length as far as float32 can
 * tell: normalize() returns it as it is, so normalising twice (an engine, then a client of it)
 * never changes a vector.
 */
const UNIT_EPSILON = 4e-7;

/** The unit vector in the direction of `v`, as float32; the zero vector stays zero. */
export function normalize(v: ArrayLike<number>): Float32Array {
  let sq = 0;
  for (let i = 0; i < v.length; i++) sq += v[i]! * v[i]!;
  const out = new Float32Array(v.length);
  if (!(sq > ZERO_EPSILON)) return out; // zero, or NaN (already refused by the clients)
  if (Math.abs(sq - 1) <= UNIT_EPSILON) {
    out.set(v);
    return out;
  }
  const inv = 1 / Math.sqrt(sq);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * inv;
  return out;
}

/**
 * Cosine similarity of two unit vectors: their dot product, in [-1, 1]; 0 when either is the zero
 * vector. Vectors of different lengths come from different models and are never comparable.
 */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`cannot compare vectors of ${a.length} and ${b.length} dimensions`);
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/** A vector as bytes for a D1 BLOB: float32, little-endian, 4 bytes per component. */
export function vectorToBytes(v: ArrayLike<number>): Uint8Array {
  const bytes = new Uint8Array(v.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < v.length; i++) view.setFloat32(i * 4, v[i]!, true);
  return bytes;
}

/** A vector back from a BLOB (D1 answers an ArrayBuffer, or an array of byte values from older bindings). */
export function bytesToVector(blob: ArrayBuffer | ArrayBufferView | readonly number[]): Float32Array {
  const bytes =
    blob instanceof ArrayBuffer
      ? new Uint8Array(blob)
      : ArrayBuffer.isView(blob)
        ? new Uint8Array(blob.buffer, blob.byteOffset, blob.byteLength)
        : Uint8Array.from(blob);
  if (bytes.length % 4 !== 0) throw new RangeError(`a stored vector has ${bytes.length} bytes, not a multiple of 4`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/** Whether a text has anything to embed (blank texts get the zero vector without a request). */
export function hasText(text: string): boolean {
  return text.trim() !== "";
}

/**
 * Embeds `texts` at most `maxBatch` per call of `embedBatch`, one call after the other, and puts the
 * vectors back in the order given. Blank texts are not passed on: they get the zero vector of the
 * dimensions `dimensionsAfter()` reports once the other texts are embedded (a client that learns its
 * dimensions from the first answer knows them by then).
 */
export async function embedInBatches(
  texts: readonly string[],
  maxBatch: number,
  embedBatch: (batch: string[], signal: AbortSignal | undefined) => Promise<Float32Array[]>,
  opts: { signal?: AbortSignal; dimensionsAfter: () => number; describe: string },
): Promise<Float32Array[]> {
  opts.signal?.throwIfAborted();
  const out = new Array<Float32Array | undefined>(texts.length);
  const pending: number[] = [];
  texts.forEach((t, i) => {
    if (hasText(t)) pending.push(i);
  });
  const size = Math.max(1, Math.floor(maxBatch));
  for (let start = 0; start < pending.length; start += size) {
    const indexes = pending.slice(start, start + size);
    const vectors = await embedBatch(
      indexes.map((i) => texts[i]!),
      opts.signal,
    );
    if (vectors.length !== indexes.length)
      throw new StepFailure("processing_failed", `${opts.describe}: ${vectors.length} vectors came back for ${indexes.length} texts`, true);
    indexes.forEach((i, k) => (out[i] = vectors[k]!));
  }
  if (pending.length < texts.length) {
    const dims = opts.dimensionsAfter();
    if (dims <= 0)
      throw new StepFailure(
        "processing_failed",
        `${opts.describe}: dimensions are unknown until a text that is not blank has been embedded (configure them)`,
        false,
      );
    for (let i = 0; i < out.length; i++) out[i] ??= new Float32Array(dims);
  }
  return out as Float32Array[];
}
