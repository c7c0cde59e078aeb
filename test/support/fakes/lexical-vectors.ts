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

function hash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function lexicalEmbedding(text: string, dims = LEXICAL_DIMENSIONS): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = hash(w);
    v[h % dims]! += h >>> 31 === 1 ? -1 : 1;
  }
  const norm = Math.hypot(...v);
  return norm === 0 ? v : v.map((x) => x / norm);
}
