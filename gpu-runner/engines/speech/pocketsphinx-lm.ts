/**
 * Adds unigrams to a PocketSphinx trie language model (`*.lm.bin`, sphinxbase 5prealpha's "Trie
 * Language Model" format) without rebuilding it. Debian's pocketsphinx has no tool that can: its
 * `sphinx_lm_convert` fails an assertion writing the en-us model as ARPA, and an ARPA model of that
 * size takes seconds to load per job. The layout (sphinxbase lm/ngram_model_trie.c, lm_trie.c,
 * lm_trie_quant.c) is:
 *
 *   "Trie Language Model" (no NUL) · uint8 order · uint32 counts[order] · int32 (1) ·
 *   quantisation tables ((order − 2) × 2 + 1 tables of 65536 float32) ·
 *   unigrams[counts[0] + 1] { float32 prob, float32 backoff, uint32 next } ·
 *   bit-packed higher orders (size from counts) · int32 k · k bytes of NUL-terminated words
 *
 * Probabilities and backoffs are stored as logarithms in the decoder's log base (1.0001, its
 * `-logbase` default). A new word gets its unigram before the sentinel, with `next` equal to the sentinel's (no bigrams
 * start at it), and its name at the end of the word list. Higher orders store word ids in
 * ceil(log2(counts[0] + 1)) bits, so the words are only added while that width stays the same; the
 * computed layout must match the file's length exactly, or the file is refused.
 */

const HEADER = "Trie Language Model";
const QUANT_TABLE_BYTES = 65_536 * 4;
const UNIGRAM_BYTES = 12;
/** log10(p) × this = log base 1.0001 of p, the unit the model stores. */
const LOG10_TO_LOGBASE = 1 / Math.log10(1.0001);

export interface NewUnigram {
  word: string;
  /** log10 probability. */
  log10Prob: number;
}

export class TrieLmError extends Error {
  override name = "TrieLmError";
}

/** Bits sphinxbase uses for a value up to `max` (bitarr_required_bits). */
function requiredBits(max: number): number {
  if (max === 0) return 0;
  let bits = 1;
  while ((max >>>= 1) !== 0) bits++;
  return bits;
}

function baseSize(entries: number, maxVocab: number, remainingBits: number): number {
  return Math.floor(((1 + entries) * (requiredBits(maxVocab) + remainingBits) + 7) / 8) + 8;
}

/** Bytes of the bit-packed bigram … n-gram arrays (lm_trie_alloc_ngram: 32 quantised bits in middles, 16 in the longest). */
function ngramBytes(counts: readonly number[]): number {
  let size = 0;
  for (let i = 1; i < counts.length - 1; i++) size += baseSize(counts[i]!, counts[0]!, 32 + requiredBits(counts[i + 1]!));
  return size + baseSize(counts.at(-1)!, counts[0]!, 16);
}

export interface TrieLayout {
  order: number;
  counts: number[];
  unigramsAt: number;
  ngramsAt: number;
  wordsAt: number;
}

export function trieLayout(lm: Buffer): TrieLayout {
  if (lm.length < HEADER.length + 1 || lm.toString("latin1", 0, HEADER.length) !== HEADER)
    throw new TrieLmError("not a trie language model (header)");
  const order = lm.readUInt8(HEADER.length);
  if (order < 2 || order > 6) throw new TrieLmError(`unexpected n-gram order ${order}`);
  const counts = Array.from({ length: order }, (_, i) => lm.readUInt32LE(HEADER.length + 1 + 4 * i));
  const quantAt = HEADER.length + 1 + 4 * order + 4;
  const unigramsAt = quantAt + ((order - 2) * 2 + 1) * QUANT_TABLE_BYTES;
  const ngramsAt = unigramsAt + (counts[0]! + 1) * UNIGRAM_BYTES;
  const wordsAt = ngramsAt + ngramBytes(counts);
  if (wordsAt + 4 > lm.length) throw new TrieLmError("file shorter than its counts say");
  const k = lm.readInt32LE(wordsAt);
  if (wordsAt + 4 + k !== lm.length) throw new TrieLmError("layout does not match the file's length");
  return { order, counts, unigramsAt, ngramsAt, wordsAt };
}

/** A word's unigram probability, log10. */
export function unigramLog10(lm: Buffer, wordId: number, layout: TrieLayout = trieLayout(lm)): number {
  return lm.readFloatLE(layout.unigramsAt + wordId * UNIGRAM_BYTES) / LOG10_TO_LOGBASE;
}

/** The model's words, in id order. */
export function trieWords(lm: Buffer, layout: TrieLayout = trieLayout(lm)): string[] {
  const k = lm.readInt32LE(layout.wordsAt);
  return lm
    .toString("latin1", layout.wordsAt + 4, layout.wordsAt + 4 + k)
    .split("\0")
    .slice(0, -1);
}

/** A copy of `lm` with `words` added as unigrams (backoff 0: a following word gets its own unigram probability). */
export function addUnigrams(lm: Buffer, words: readonly NewUnigram[]): Buffer {
  const layout = trieLayout(lm);
  const { counts } = layout;
  const n = counts[0]!;
  if (requiredBits(n + words.length) !== requiredBits(n))
    throw new TrieLmError(`adding ${words.length} words would widen the model's word ids`);
  for (const w of words) {
    // Names are written NUL-terminated and read back by whitespace-free lookups.
    if (!/^[\x21-\x7e]+$/.test(w.word)) throw new TrieLmError(`refusing word name ${JSON.stringify(w.word)}`);
    if (!Number.isFinite(w.log10Prob) || w.log10Prob > 0) throw new TrieLmError(`bad probability for ${w.word}`);
  }
  const sentinelAt = layout.unigramsAt + n * UNIGRAM_BYTES;
  const sentinel = lm.subarray(sentinelAt, sentinelAt + UNIGRAM_BYTES);
  const next = sentinel.readUInt32LE(8);

  const header = Buffer.from(lm.subarray(0, layout.unigramsAt));
  header.writeUInt32LE(n + words.length, HEADER.length + 1);
  const added = Buffer.alloc(words.length * UNIGRAM_BYTES);
  words.forEach((w, i) => {
    added.writeFloatLE(w.log10Prob * LOG10_TO_LOGBASE, i * UNIGRAM_BYTES);
    added.writeFloatLE(0, i * UNIGRAM_BYTES + 4);
    added.writeUInt32LE(next, i * UNIGRAM_BYTES + 8);
  });
  const oldK = lm.readInt32LE(layout.wordsAt);
  const names = Buffer.from(words.map((w) => `${w.word}\0`).join(""), "latin1");
  const k = Buffer.alloc(4);
  k.writeInt32LE(oldK + names.length);
  return Buffer.concat([
    header,
    lm.subarray(layout.unigramsAt, sentinelAt),
    added,
    sentinel,
    lm.subarray(layout.ngramsAt, layout.wordsAt),
    k,
    lm.subarray(layout.wordsAt + 4),
    names,
  ]);
}
