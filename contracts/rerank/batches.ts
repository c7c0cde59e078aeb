/** The scores of `texts`, asked `RERANK_MAX_TEXTS` at a time. */
export async function rerankInBatches(
  texts: readonly string[],
  max: number,
  call: (batch: string[], signal: AbortSignal | undefined) => Promise<number[]>,
  signal: AbortSignal | undefined,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < texts.length; i += max) {
    signal?.throwIfAborted();
    out.push(...(await call(texts.slice(i, i + max), signal)));
  }
  return out;
}

/** Scores by index from an answer listing `{ index, score }` entries in any order (TEI, Workers AI). */
export function scoresByIndex(
  entries: unknown,
  count: number,
  indexKey: string,
  scoreKey: string,
  fail: (message: string) => Error,
): number[] {
  if (!Array.isArray(entries)) throw fail("answered without a list of scores");
  const scores = new Array<number | undefined>(count).fill(undefined);
  for (const e of entries as Array<Record<string, unknown>>) {
    const index = e?.[indexKey];
    const score = e?.[scoreKey];
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count)
      throw fail(`answered an entry for text ${String(index)} of ${count}`);
    if (typeof score !== "number" || !Number.isFinite(score)) throw fail(`answered a score for text ${index} that is not a number`);
    scores[index] = score;
  }
  const missing = scores.findIndex((s) => s === undefined);
  if (missing >= 0) throw fail(`answered no score for text ${missing} of ${count}`);
  return scores as number[];
}
