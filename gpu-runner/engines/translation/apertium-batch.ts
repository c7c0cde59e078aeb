/**
 * Many segment texts through Apertium in few runs, one output per input, for both transports
 * (apertium-apy.ts, apertium-cli.ts).
 *
 * The separator is a blank line in Apertium's `txt` format. Its deformatter (`apertium-destxt`)
 * turns a blank line into a sentence end (a hidden `.` in a superblank), so no transfer rule
 * reaches across it: a word can never move from one segment into its neighbour, and each text
 * comes out as it would alone (checked on every installed mode: batched equals one-by-one). A
 * single newline would not do: `I saw the big\nred house` comes out `Vi la casa\nroja grande`.
 * So each text is flattened first (any whitespace run, newlines included, becomes one space), and
 * the output is split on blank lines.
 *
 * When a run's output does not split into as many parts as it had texts (never seen, but the
 * grammar of a pair is outside our control), that run's texts are translated one at a time, so
 * the count and order are kept whatever happens. Empty texts are never sent and stay empty.
 */
export const SEPARATOR = "\n\n";

export function flatText(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export interface Batch {
  /** Indexes into the texts of the call. */
  indexes: number[];
  /** The flattened texts joined by SEPARATOR. */
  text: string;
}

/** The non-empty texts in order, in runs of at most `maxChars` characters (a longer text goes alone). */
export function batches(texts: readonly string[], maxChars: number): Batch[] {
  const out: Batch[] = [];
  let indexes: number[] = [];
  let parts: string[] = [];
  let chars = 0;
  const flush = () => {
    if (parts.length > 0) out.push({ indexes, text: parts.join(SEPARATOR) });
    indexes = [];
    parts = [];
    chars = 0;
  };
  for (const [index, raw] of texts.entries()) {
    const text = flatText(raw);
    if (text === "") continue;
    const added = text.length + (parts.length > 0 ? SEPARATOR.length : 0);
    if (parts.length > 0 && chars + added > maxChars) flush();
    chars += parts.length > 0 ? added : text.length;
    indexes.push(index);
    parts.push(text);
  }
  flush();
  return out;
}

/** The parts of a run's output, or undefined when there are not `count` of them. */
export function splitOutput(output: string, count: number): string[] | undefined {
  const parts = output
    .trim()
    .split(/\n[ \t]*\n\s*/)
    .map((p) => flatText(p));
  if (count === 1) return [flatText(output)];
  return parts.length === count ? parts : undefined;
}

export interface BatchedOptions {
  maxChars: number;
  /** One Apertium run over a text (one or many segments joined by SEPARATOR). */
  run: (text: string) => Promise<string>;
  signal: AbortSignal;
  onProgress?: (done: number) => void;
  /** Called when a run's output had the wrong number of parts and its texts went one at a time. */
  onSplitMismatch?: (batch: Batch, parts: number) => void;
  /** Runs in flight at once (default 1). */
  concurrency?: number;
}

export async function translateBatched(texts: readonly string[], opts: BatchedOptions): Promise<string[]> {
  const out = texts.map(() => "");
  let done = texts.filter((t) => flatText(t) === "").length;
  const todo = batches(texts, opts.maxChars);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < todo.length && !failed) {
      const batch = todo[next++]!;
      try {
        await one(batch);
      } catch (err) {
        // The other workers stop taking batches: the call has failed.
        failed = true;
        throw err;
      }
      done += batch.indexes.length;
      opts.onProgress?.(done);
    }
  };
  const one = async (batch: Batch) => {
    opts.signal.throwIfAborted();
    const output = await opts.run(batch.text);
    let parts = splitOutput(output, batch.indexes.length);
    if (!parts) {
      opts.onSplitMismatch?.(batch, output.trim().split(/\n[ \t]*\n\s*/).length);
      parts = [];
      for (const i of batch.indexes) parts.push(flatText(await opts.run(flatText(texts[i]!))));
    }
    batch.indexes.forEach((i, k) => (out[i] = parts[k]!));
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 1, todo.length) }, worker));
  return out;
}
