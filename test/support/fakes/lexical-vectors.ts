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
