/**
 * What the fake embedding models answer, shared by the fake APIs (openai-compatible.ts,
 * workers-ai.ts) and the fake Workers AI binding: deterministic vectors drawn from a hash of the
 * model and the text. The same text under the same model always gets the same vector; any two
 * different texts get unrelated, nearly orthogonal ones. So the fakes show that vectors come back
 * whole and in the right order, but similarity means nothing for them (only the local engine's
 * vectors carry meaning).
 */

/** FNV-1a, 32 bits: the fake embedding models' hash. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a small seeded generator of numbers in [0, 1). */
function generator(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The fake model's vector for `text`: `dimensions` components in [-1, 1), scaled to length `length`
 * (OpenAI's embeddings are unit length; a fake can answer longer ones to show the client normalises).
 */
export function fakeEmbedding(model: string, text: string, dimensions: number, length = 1): number[] {
  const next = generator(fnv1a(`${model}\n${text}`));
  const v = Array.from({ length: dimensions }, () => next() * 2 - 1);
  const norm = Math.hypot(...v);
  return v.map((x) => (x / norm) * length);
}

/** Workers AI's bge models and their dimensions. */
export const BGE_MODELS: Readonly<Record<string, number>> = {
  "@cf/baai/bge-small-en-v1.5": 384,
  "@cf/baai/bge-base-en-v1.5": 768,
  "@cf/baai/bge-large-en-v1.5": 1024,
};

/** Workers AI's largest `text` batch for the bge models. */
export const BGE_MAX_ITEMS = 100;

/**
 * A bge model's output for its input, as Cloudflare's schema describes them: input `{ text: string |
 * string[] (each non-empty, at most 100), pooling?: "mean" | "cls" }`, output `{ shape: [n, dims],
 * data, pooling }`. The vectors are not unit length (length 2), and cls pooling gives other vectors
 * than mean. Throws, in Workers AI's words, on input the schema refuses.
 */
export function bgeOutput(model: string, input: Record<string, unknown>): { shape: number[]; data: number[][]; pooling: string } {
  const dims = BGE_MODELS[model];
  if (dims === undefined) throw new Error(`5007: No such model ${model} or task`);
  const { text, pooling = "mean" } = input;
  const texts = typeof text === "string" ? [text] : text;
  if (!Array.isArray(texts) || !texts.every((t) => typeof t === "string"))
    throw new Error("Type mismatch of '/text', 'array' not in 'string', 'array'");
  if (texts.length > BGE_MAX_ITEMS) throw new Error(`Length of '/text' must be <= ${BGE_MAX_ITEMS}`);
  if (texts.some((t) => t.length === 0)) throw new Error("Length of '/text/0' must be >= 1");
  if (pooling !== "mean" && pooling !== "cls") throw new Error("Value of '/pooling' must be one of: 'mean', 'cls'");
  return {
    shape: [texts.length, dims],
    data: texts.map((t) => fakeEmbedding(`${model}#${pooling}`, t, dims, 2)),
    pooling,
  };
}
