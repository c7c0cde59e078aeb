/**
 * Runs `fn` over items with at most `limit` in flight and keeps input order. The first failure
 * aborts the siblings (their child processes and requests are tied to the derived signal).
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  parent: AbortSignal,
  fn: (item: T, signal: AbortSignal, index: number) => Promise<R>,
): Promise<R[]> {
  const controller = new AbortController();
  const signal = AbortSignal.any([parent, controller.signal]);
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      signal.throwIfAborted();
      const i = next++;
      results[i] = await fn(items[i]!, signal, i);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  } catch (err) {
    controller.abort(err);
    throw err;
  }
  return results;
}
