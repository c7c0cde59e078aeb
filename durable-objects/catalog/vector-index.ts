/**
 * A catalog object's vectors, decoded, in memory: per embedding model one contiguous Float32Array
 * (`count × dimensions`, grown by doubling) and, per slot, the chunk's row id, transcript,
 * generation and times as small integers and numbers, so a search scans typed arrays only.
 *
 * Exact cosine (the vectors are unit length: a dot product) with a bounded top-K. Removal moves the
 * last slot into the hole, so the buffer stays dense. The index is rebuilt from the object's SQLite
 * storage on first use after the object starts (catalog-do.ts) and kept in step with every write.
 */

export interface IndexedVector {
  rowId: number;
  textSourceId: string;
  /** The chunk's generation, or null for a vector whose chunk row is unknown (it is never live). */
  generation: string | null;
  start: number;
  end: number;
  model: string;
  vector: Float32Array;
}

export interface ScoredRow {
  rowId: number;
  score: number;
}

/** Small integers for repeated strings (transcripts, generations): one copy each, compared as numbers. */
class Interner {
  private readonly ids = new Map<string, number>();
  readonly values: string[] = [];
  id(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.values.length;
      this.ids.set(s, id);
      this.values.push(s);
    }
    return id;
  }
  find(s: string): number | undefined {
    return this.ids.get(s);
  }
}

class ModelVectors {
  count = 0;
  data: Float32Array;
  rowIds: Int32Array;
  sources: Int32Array;
  generations: Int32Array;
  starts: Float64Array;
  ends: Float64Array;
  readonly slotOf = new Map<number, number>();

  constructor(
    readonly dimensions: number,
    capacity = 64,
  ) {
    this.data = new Float32Array(dimensions * capacity);
    this.rowIds = new Int32Array(capacity);
    this.sources = new Int32Array(capacity);
    this.generations = new Int32Array(capacity);
    this.starts = new Float64Array(capacity);
    this.ends = new Float64Array(capacity);
  }

  /** By half again, not double: near the object's memory bound a doubling (old and new buffers at once) would not fit. */
  private grow(): void {
    const cap = Math.ceil(this.rowIds.length * 1.5);
    const data = new Float32Array(cap * this.dimensions);
    data.set(this.data);
    this.data = data;
    for (const key of ["rowIds", "sources", "generations"] as const) {
      const next = new Int32Array(cap);
      next.set(this[key]);
      this[key] = next;
    }
    for (const key of ["starts", "ends"] as const) {
      const next = new Float64Array(cap);
      next.set(this[key]);
      this[key] = next;
    }
  }

  put(rowId: number, source: number, generation: number, start: number, end: number, v: Float32Array): void {
    let slot = this.slotOf.get(rowId);
    if (slot === undefined) {
      if (this.count === this.rowIds.length) this.grow();
      slot = this.count++;
      this.slotOf.set(rowId, slot);
    }
    this.data.set(v, slot * this.dimensions);
    this.rowIds[slot] = rowId;
    this.sources[slot] = source;
    this.generations[slot] = generation;
    this.starts[slot] = start;
    this.ends[slot] = end;
  }

  remove(rowId: number): boolean {
    const slot = this.slotOf.get(rowId);
    if (slot === undefined) return false;
    const last = --this.count;
    if (slot !== last) {
      const d = this.dimensions;
      this.data.copyWithin(slot * d, last * d, last * d + d);
      this.rowIds[slot] = this.rowIds[last]!;
      this.sources[slot] = this.sources[last]!;
      this.generations[slot] = this.generations[last]!;
      this.starts[slot] = this.starts[last]!;
      this.ends[slot] = this.ends[last]!;
      this.slotOf.set(this.rowIds[slot]!, slot);
    }
    this.slotOf.delete(rowId);
    return true;
  }
}

/** Which slots a scan may answer: by transcript and its live generation, and by time. */
export interface ScanFilter {
  /** Transcript → the generation that may answer; a transcript not named answers nothing. */
  liveGenerations: ReadonlyMap<string, string>;
  minStart?: number;
  maxEnd?: number;
}

export class VectorIndex {
  private readonly byModel = new Map<string, ModelVectors>();
  private readonly modelOfRow = new Map<number, string>();
  private readonly sourceIds = new Interner();
  private readonly generationIds = new Interner();

  get size(): number {
    return this.modelOfRow.size;
  }

  /** Room for `count` vectors of a model before they are put (a load from storage knows its counts). */
  reserve(model: string, dimensions: number, count: number): void {
    if (!this.byModel.has(model)) this.byModel.set(model, new ModelVectors(dimensions, Math.max(64, count)));
  }

  put(p: IndexedVector): void {
    const previous = this.modelOfRow.get(p.rowId);
    if (previous !== undefined && previous !== p.model) this.remove(p.rowId);
    let m = this.byModel.get(p.model);
    if (m && m.dimensions !== p.vector.length) throw new RangeError(`model ${p.model}: ${p.vector.length} dimensions, not ${m.dimensions}`);
    if (!m) this.byModel.set(p.model, (m = new ModelVectors(p.vector.length)));
    const generation = p.generation === null ? -1 : this.generationIds.id(p.generation);
    m.put(p.rowId, this.sourceIds.id(p.textSourceId), generation, p.start, p.end, p.vector);
    this.modelOfRow.set(p.rowId, p.model);
  }

  remove(rowId: number): void {
    const model = this.modelOfRow.get(rowId);
    if (model === undefined) return;
    this.byModel.get(model)?.remove(rowId);
    this.modelOfRow.delete(rowId);
  }

  /**
   * The `k` best rows by cosine with `query` among the model's vectors: every vector when `filter` is
   * absent, else only live chunks of the named transcripts inside the time range.
   */
  topK(model: string, query: Float32Array, k: number, filter?: ScanFilter, textSourceIds?: readonly string[]): ScoredRow[] {
    const m = this.byModel.get(model);
    if (!m || m.dimensions !== query.length || k <= 0) return [];
    const d = m.dimensions;
    // Per transcript id: the generation id that may answer (-2: none may).
    const wanted = new Int32Array(this.sourceIds.values.length).fill(filter ? -2 : -3);
    if (filter)
      for (const [source, generation] of filter.liveGenerations) {
        const s = this.sourceIds.find(source);
        const g = this.generationIds.find(generation);
        if (s !== undefined && g !== undefined) wanted[s] = g;
      }
    else if (textSourceIds && textSourceIds.length > 0) {
      wanted.fill(-2);
      for (const source of textSourceIds) {
        const s = this.sourceIds.find(source);
        if (s !== undefined) wanted[s] = -3;
      }
    }
    const minStart = filter?.minStart ?? Number.NEGATIVE_INFINITY;
    const maxEnd = filter?.maxEnd ?? Number.POSITIVE_INFINITY;
    const { data, sources, generations, starts, ends } = m;
    const bestScore: number[] = [];
    const bestSlot: number[] = [];
    let floor = Number.NEGATIVE_INFINITY;
    for (let slot = 0; slot < m.count; slot++) {
      const want = wanted[sources[slot]!]!;
      // -3: any generation answers (a plain vector-store query); else exactly the live one.
      if (want === -2 || (want !== -3 && want !== generations[slot])) continue;
      if (starts[slot]! < minStart || ends[slot]! > maxEnd) continue;
      const dot = dotAt(data, slot * d, query, d);
      if (bestScore.length === k && dot <= floor) continue;
      let pos = bestScore.length;
      while (pos > 0 && bestScore[pos - 1]! < dot) pos--;
      bestScore.splice(pos, 0, dot);
      bestSlot.splice(pos, 0, slot);
      if (bestScore.length > k) {
        bestScore.pop();
        bestSlot.pop();
      }
      if (bestScore.length === k) floor = bestScore[k - 1]!;
    }
    return bestSlot.map((slot, i) => ({ rowId: m.rowIds[slot]!, score: bestScore[i]! }));
  }
}

/**
 * The dot product of the query with the vector at `at`, in four running sums: the scan's whole cost,
 * and about 1.6× faster in V8 than one sum (no auto-vectorisation; four independent chains keep the
 * multipliers busy). The order of additions differs from a single sum in the last bits only.
 */
function dotAt(data: Float32Array, at: number, query: Float32Array, d: number): number {
  let a = 0;
  let b = 0;
  let c = 0;
  let e = 0;
  let i = 0;
  for (; i + 3 < d; i += 4) {
    a += data[at + i]! * query[i]!;
    b += data[at + i + 1]! * query[i + 1]!;
    c += data[at + i + 2]! * query[i + 2]!;
    e += data[at + i + 3]! * query[i + 3]!;
  }
  for (; i < d; i++) a += data[at + i]! * query[i]!;
  return a + b + c + e;
}
