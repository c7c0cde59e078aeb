import { fnv1a } from "./embeddings";

/**
 * A stand-in embedding model for the Worker's catalog tests: signed feature hashing of a text's
 * lower-cased words into 64 dimensions, unit length. Texts sharing words are close and texts sharing
 * none are nearly orthogonal, so dense search in a test ranks what a reader would expect, while the
 * real meaning-bearing engine (local-wink) is tested on its own. Served over HTTP by
 * lexical-embeddings.ts; pure here, so the Workers tests can compute the same vectors.
 */
export const LEXICAL_MODEL = "lexical-hash-64";
export const LEXICAL_DIMENSIONS = 64;
/** A text containing this word makes the server answer 503 (tests of a failing embeddings server). */
export const LEXICAL_FAIL_WORD = "zzfailembedding";

export function lexicalEmbedding(text: string, dims = LEXICAL_DIMENSIONS): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = fnv1a(w);
    v[h % dims]! += h >>> 31 === 1 ? -1 : 1;
  }
  const norm = Math.hypot(...v);
  return norm === 0 ? v : v.map((x) => x / norm);
}

/** A query containing this word makes the server's reranker answer 503 (tests of a failing reranker). */
export const LEXICAL_RERANK_FAIL_WORD = "zzfailrerank";

/**
 * The stand-in reranker served beside the stand-in model: the share of the query's distinct words
 * that the text contains. Deterministic and easy to reason about in a test; the real reranker
 * (local-wink) is tested on its own.
 */
export function lexicalRerankScore(query: string, text: string): number {
  const words = (t: string) => new Set(t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const q = words(query);
  const inText = words(text);
  if (q.size === 0) return 0;
  let hits = 0;
  for (const w of q) if (inText.has(w)) hits++;
  return hits / q.size;
}
