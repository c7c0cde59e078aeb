import { StepFailure } from "../step-failure";
import type { EmbeddingEngine, EmbeddingIdentity } from "./interface";

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
