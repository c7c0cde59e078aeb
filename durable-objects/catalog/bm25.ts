import { stem, tokenize, tokenizeWords } from "./tokenizer";

/**
 * The catalog object's sparse index: BM25 over an inverted index held in memory while the object is
 * warm, built from the `chunks` table on the first search after the object starts (catalog-do.ts) and
 * kept in step with every write and removal. It scores as SQLite FTS5's `bm25()` did with default
 * weights (fts5_aux.c: k1 = 1.2, b = 0.75, idf = ln((N − n + 0.5) / (n + 0.5)) floored at 1e-6,
 * summed over the query's terms in order), with N, n and the average length over every chunk row (all
 * generations, as FTS5 counted them), and ties in FTS5's order (row id ascending).
 *
 * Layout (typed arrays only; per chunk about 40 bytes plus ~2 bytes per distinct term it holds):
 * - per chunk slot, in row-id order: row id, token count, transcript and generation (interned),
 *   start, end, and whether it is still in the catalog;
 * - the postings built with the index ("main"): per term a run of varints in one byte array, each a
 *   slot gap (doubled, plus 1 when the term occurs more than once, then that count);
 * - the postings of chunks written since ("tail"): per term a flat array [slot, count, …].
 * A removed chunk's postings stay, skipped, until the object rebuilds the index: it does when the
 * tail or the removed chunks outgrow a quarter of the index (`stale`).
 */

export interface IndexedChunk {
  id: number;
  text_source_id: string;
  generation: string;
  start: number;
  end: number;
  text: string;
}

/** Which chunks a search may answer: by transcript and its live generation, and by time. */
export interface SparseFilter {
  /** Transcript → the generation that may answer; a transcript not named answers nothing. */
  liveGenerations: ReadonlyMap<string, string>;
  minStart?: number;
  maxEnd?: number;
}

export interface SparseHit {
  rowId: number;
  /** FTS5's bm25() negated: higher is better. */
  score: number;
  /** How many of the query's words the chunk holds (for the hybrid admission rule). */
  coverage: number;
}

const K1 = 1.2;
const B = 0.75;
/** A tail this small is never worth a rebuild. */
const MIN_TAIL = 2048;

class Interner {
  private readonly ids = new Map<string, number>();
  size = 0;
  id(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) this.ids.set(s, (id = this.size++));
    return id;
  }
  find(s: string): number | undefined {
    return this.ids.get(s);
  }
}

function grown<T extends Int32Array | Float64Array | Uint8Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  const next = new (a.constructor as new (n: number) => T)(Math.max(need, Math.ceil(a.length * 1.5), 64));
  next.set(a);
  return next;
}

const varintLength = (v: number) => (v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5);

export class Bm25Index {
  // Per slot.
  private rowIds = new Int32Array(0);
  private lengths = new Int32Array(0);
  private sources = new Int32Array(0);
  private generations = new Int32Array(0);
  private starts = new Float64Array(0);
  private ends = new Float64Array(0);
  private alive = new Uint8Array(0);
  private slots = 0;
  /** Chunks in the index, and their tokens: FTS5's row count and total size. */
  private docs = 0;
  private totalTokens = 0;

  private readonly terms = new Interner();
  private readonly sourceIds = new Interner();
  private readonly generationIds = new Interner();

  // Main postings: term t's varints are mainBytes[mainStart[t] .. mainStart[t + 1]).
  private mainStart = new Int32Array(1);
  private mainBytes = new Uint8Array(0);
  private mainSlots = 0;
  private readonly tail = new Map<number, number[]>();

  // A search's scratch, per slot (reset after each search).
  private scores = new Float64Array(0);
  private coverage = new Uint8Array(0);

  /** The index of these chunks, given in row-id order (read one at a time: a cursor never holds them all). */
  static build(chunks: Iterable<IndexedChunk>): Bm25Index {
    const index = new Bm25Index();
    index.buildMain(chunks);
    return index;
  }

  get size(): number {
    return this.docs;
  }

  /** True once written or removed chunks have outgrown the built index: the object rebuilds it then. */
  get stale(): boolean {
    const tailSlots = this.slots - this.mainSlots;
    const removed = this.slots - this.docs;
    return tailSlots + removed > Math.max(MIN_TAIL, this.mainSlots / 4);
  }

  /** Bytes held (typed arrays, and an estimate of the term dictionary and the tail). */
  get bytes(): number {
    let tail = 0;
    for (const p of this.tail.values()) tail += 8 * p.length + 32;
    const perSlot = this.rowIds.length * (4 * 4 + 8 * 2 + 1) + this.scores.length * 9;
    return perSlot + this.mainStart.byteLength + this.mainBytes.byteLength + tail + this.terms.size * 64;
  }

  has(rowId: number): boolean {
    const slot = this.slotOf(rowId);
    return slot >= 0 && this.alive[slot] === 1;
  }

  /**
   * Adds chunks written after the index was built. Row ids only grow (AUTOINCREMENT), so slots stay
   * in row-id order; answers false, adding nothing, if one does not (the caller rebuilds instead).
   */
  add(chunks: readonly IndexedChunk[]): boolean {
    const sorted = [...chunks].sort((a, b) => a.id - b.id);
    const last = this.slots > 0 ? this.rowIds[this.slots - 1]! : 0;
    if (sorted.length > 0 && sorted[0]!.id <= last) return false;
    for (const c of sorted) {
      const slot = this.placeSlot(c);
      this.eachTermOf(c.text, slot, (term, tf) => {
        let postings = this.tail.get(term);
        if (!postings) this.tail.set(term, (postings = []));
        postings.push(slot, tf);
      });
    }
    this.wordTerms = null;
    return true;
  }

  remove(rowIds: readonly number[]): void {
    for (const id of rowIds) {
      const slot = this.slotOf(id);
      if (slot < 0 || this.alive[slot] === 0) continue;
      this.alive[slot] = 0;
      this.docs--;
      this.totalTokens -= this.lengths[slot]!;
    }
  }

  /**
   * The `k` best chunks for a query's words by BM25 (each word a term, stemmed as indexed), among the
   * chunks `filter` lets answer (every chunk when absent), best first, ties by row id.
   */
  search(words: readonly string[], k: number, filter?: SparseFilter): SparseHit[] {
    const termIds: number[] = [];
    // A query word is one token, except for the 21 code points JavaScript's newer Unicode calls letters
    // and SQLite's tables do not: FTS5 searched such a word as a phrase, here its tokens count apart.
    for (const w of words) tokenize(w, (term) => termIds.push(this.terms.find(term) ?? -1));
    if (termIds.length === 0 || this.docs === 0 || k <= 0) return [];
    this.scores = grown(this.scores, this.slots);
    this.coverage = grown(this.coverage, this.slots);
    const { scores, coverage, lengths } = this;
    const avgdl = this.totalTokens / this.docs;
    const touched: number[] = [];
    for (const term of termIds) {
      if (term < 0) continue;
      let n = 0;
      this.eachPosting(term, () => n++);
      let idf = Math.log((this.docs - n + 0.5) / (n + 0.5));
      if (idf <= 0.0) idf = 1e-6;
      // As fts5Bm25Function computes it, term by term, so the sums round the same way.
      this.eachPosting(term, (slot, tf) => {
        if (coverage[slot] === 0) touched.push(slot);
        coverage[slot] = coverage[slot]! + 1;
        scores[slot] = scores[slot]! + idf * ((tf * (K1 + 1.0)) / (tf + K1 * (1 - B + (B * lengths[slot]!) / avgdl)));
      });
    }
    const hits = this.best(touched, k, filter);
    for (const slot of touched) {
      scores[slot] = 0;
      coverage[slot] = 0;
    }
    return hits;
  }

  private best(touched: readonly number[], k: number, filter?: SparseFilter): SparseHit[] {
    const wanted = this.wantedGenerations(filter);
    const minStart = filter?.minStart ?? Number.NEGATIVE_INFINITY;
    const maxEnd = filter?.maxEnd ?? Number.POSITIVE_INFINITY;
    const top: number[] = [];
    const better = (a: number, b: number) => this.scores[a]! > this.scores[b]! || (this.scores[a] === this.scores[b] && a < b);
    for (const slot of touched) {
      if (wanted && wanted[this.sources[slot]!] !== this.generations[slot]) continue;
      if (this.starts[slot]! < minStart || this.ends[slot]! > maxEnd) continue;
      if (top.length === k && !better(slot, top[k - 1]!)) continue;
      let pos = top.length;
      while (pos > 0 && better(slot, top[pos - 1]!)) pos--;
      top.splice(pos, 0, slot);
      if (top.length > k) top.pop();
    }
    return top.map((slot) => ({ rowId: this.rowIds[slot]!, score: this.scores[slot]!, coverage: this.coverage[slot]! }));
  }

  /** Per interned transcript, the generation id that may answer (-1: none); null: no filter. */
  private wantedGenerations(filter?: SparseFilter): Int32Array | null {
    if (!filter) return null;
    const wanted = new Int32Array(this.sourceIds.size).fill(-1);
    for (const [source, generation] of filter.liveGenerations) {
      const s = this.sourceIds.find(source);
      const g = this.generationIds.find(generation);
      if (s !== undefined && g !== undefined) wanted[s] = g;
    }
    return wanted;
  }

  /** Each chunk still in the index that holds `term`, with the term's count in it. */
  private eachPosting(term: number, visit: (slot: number, tf: number) => void): void {
    const { mainBytes, alive } = this;
    if (term + 1 < this.mainStart.length) {
      let p = this.mainStart[term]!;
      const end = this.mainStart[term + 1]!;
      let slot = -1;
      while (p < end) {
        let v = 0;
        let shift = 0;
        let byte: number;
        do {
          byte = mainBytes[p++]!;
          v += (byte & 0x7f) * 2 ** shift;
          shift += 7;
        } while (byte & 0x80);
        slot += Math.floor(v / 2);
        let tf = 1;
        if (v & 1) {
          tf = 0;
          shift = 0;
          do {
            byte = mainBytes[p++]!;
            tf += (byte & 0x7f) * 2 ** shift;
            shift += 7;
          } while (byte & 0x80);
        }
        if (alive[slot]) visit(slot, tf);
      }
    }
    const tail = this.tail.get(term);
    if (tail) for (let i = 0; i < tail.length; i += 2) if (alive[tail[i]!]) visit(tail[i]!, tail[i + 1]!);
  }

  private slotOf(rowId: number): number {
    let lo = 0;
    let hi = this.slots - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const id = this.rowIds[mid]!;
      if (id === rowId) return mid;
      if (id < rowId) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private placeSlot(c: IndexedChunk): number {
    const slot = this.slots++;
    const need = this.slots;
    this.rowIds = grown(this.rowIds, need);
    this.lengths = grown(this.lengths, need);
    this.sources = grown(this.sources, need);
    this.generations = grown(this.generations, need);
    this.starts = grown(this.starts, need);
    this.ends = grown(this.ends, need);
    this.alive = grown(this.alive, need);
    this.rowIds[slot] = c.id;
    this.sources[slot] = this.sourceIds.id(c.text_source_id);
    this.generations[slot] = this.generationIds.id(c.generation);
    this.starts[slot] = c.start;
    this.ends[slot] = c.end;
    this.alive[slot] = 1;
    this.docs++;
    return slot;
  }

  private termScratch = new Int32Array(256);
  /** Word → term id while chunks are added (dropped after: the dictionary of terms is what stays). */
  private wordTerms: Map<string, number> | null = null;

  /** Tokenizes a chunk into its slot: its length, and each distinct term with its count, terms ascending. */
  private eachTermOf(text: string, slot: number, visit: (term: number, tf: number) => void): void {
    let n = 0;
    const words = (this.wordTerms ??= new Map());
    tokenizeWords(text, (word) => {
      let term = words.get(word);
      if (term === undefined) words.set(word, (term = this.terms.id(stem(word))));
      if (n === this.termScratch.length) this.termScratch = grown(this.termScratch, n + 1);
      this.termScratch[n++] = term;
    });
    this.lengths[slot] = n;
    this.totalTokens += n;
    const ids = this.termScratch.subarray(0, n).sort();
    for (let i = 0; i < n;) {
      let j = i + 1;
      while (j < n && ids[j] === ids[i]) j++;
      visit(ids[i]!, j - i);
      i = j;
    }
  }

  /**
   * The main postings in two passes: the first tokenizes each chunk once, keeping its terms as
   * varints (a term-id gap and a count) and each term's encoded size; the second lays the postings
   * out term by term. Peak memory is the compact per-chunk list, not one object per posting.
   */
  private buildMain(chunks: Iterable<IndexedChunk>): void {
    let forward = new Uint8Array(1024);
    let at = 0;
    const write = (v: number) => {
      forward = grown(forward, at + 5);
      while (v >= 0x80) {
        forward[at++] = (v % 0x80) | 0x80;
        v = Math.floor(v / 0x80);
      }
      forward[at++] = v;
    };
    let lastSlot = new Int32Array(0);
    let sizes = new Int32Array(0);
    for (const c of chunks) {
      if (this.slots > 0 && c.id <= this.rowIds[this.slots - 1]!) throw new RangeError(`chunk ${c.id} is out of row-id order`);
      const slot = this.placeSlot(c);
      let previousTerm = -1;
      const items: number[] = [];
      this.eachTermOf(c.text, slot, (term, tf) => {
        items.push(term - previousTerm, tf);
        previousTerm = term;
        if (term >= lastSlot.length) {
          const before = lastSlot.length;
          lastSlot = grown(lastSlot, term + 1);
          lastSlot.fill(-1, before);
          sizes = grown(sizes, term + 1);
        }
        const gap = slot - lastSlot[term]!;
        sizes[term] = sizes[term]! + varintLength(gap * 2 + (tf > 1 ? 1 : 0)) + (tf > 1 ? varintLength(tf) : 0);
        lastSlot[term] = slot;
      });
      write(items.length / 2);
      for (const v of items) write(v);
    }
    const termCount = this.terms.size;
    this.mainStart = new Int32Array(termCount + 1);
    for (let t = 0; t < termCount; t++) this.mainStart[t + 1] = this.mainStart[t]! + (sizes[t] ?? 0);
    const bytes = new Uint8Array(this.mainStart[termCount]!);
    const cursor = this.mainStart.slice(0, termCount);
    lastSlot.fill(-1);
    const put = (t: number, v: number) => {
      let p = cursor[t]!;
      while (v >= 0x80) {
        bytes[p++] = (v % 0x80) | 0x80;
        v = Math.floor(v / 0x80);
      }
      bytes[p++] = v;
      cursor[t] = p;
    };
    let p = 0;
    const read = () => {
      let v = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = forward[p++]!;
        v += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      } while (byte & 0x80);
      return v;
    };
    for (let slot = 0; slot < this.slots; slot++) {
      const distinct = read();
      let term = -1;
      for (let i = 0; i < distinct; i++) {
        term += read();
        const tf = read();
        put(term, (slot - lastSlot[term]!) * 2 + (tf > 1 ? 1 : 0));
        if (tf > 1) put(term, tf);
        lastSlot[term] = slot;
      }
    }
    this.mainBytes = bytes;
    this.mainSlots = this.slots;
    this.wordTerms = null;
  }
}

/**
 * The words of `text` a query matched, as character ranges: each token whose term is one of the query
 * words' terms, as FTS5's highlight() marked them (one range per token; adjacent tokens stay apart).
 */
export function queryMarks(text: string, words: readonly string[]): Array<[number, number]> {
  const terms = new Set<string>();
  for (const w of words) tokenize(w, (term) => terms.add(term));
  const marks: Array<[number, number]> = [];
  if (terms.size > 0) tokenize(text, (term, start, end) => terms.has(term) && marks.push([start, end]));
  return marks;
}
