import { MediaJobsError } from "./errors";
import type { Sleep } from "./transport";

/** How a wait polls: shared by `jobs.wait` and `workflows.wait`. */
export interface PollOptions<T> {
  /** First poll interval; also the interval right after the thing changed. Default 1000 ms. */
  intervalMs?: number;
  /** The interval grows ×1.5 per unchanged poll up to this. Default 10 000 ms. */
  maxIntervalMs?: number;
  /** Give up after this long. Default: no limit. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with the first state seen and again whenever it changes. */
  onUpdate?: (value: T) => void;
}

export interface PollRules<T> {
  read(signal: AbortSignal | undefined): Promise<T>;
  ended(value: T): boolean;
  /** Whether `next` differs from `prev` (its `updatedAt` or status moved). */
  changed(prev: T, next: T): boolean;
  /** For the error when nothing could be read before the timeout: `job job_…`. */
  label: string;
  sleep: Sleep;
}

/**
 * Polls until `ended`, and answers `{ value, timedOut: false }`; at the timeout, the last state seen
 * with `timedOut: true` (the caller throws its own timeout error). The interval starts at
 * `intervalMs`, grows while nothing changes and drops back when the state moves. A 429 or 503 waits
 * for its `Retry-After` (or the current interval) and polls again; other errors are thrown.
 */
export async function pollUntil<T>(rules: PollRules<T>, options: PollOptions<T> = {}): Promise<{ value: T; timedOut: boolean }> {
  const base = options.intervalMs ?? 1000;
  const max = Math.max(base, options.maxIntervalMs ?? 10_000);
  const started = Date.now();
  let interval = base;
  let last: T | undefined;
  for (;;) {
    let delay = interval;
    try {
      const value = await rules.read(options.signal);
      if (last === undefined || rules.changed(last, value)) {
        options.onUpdate?.(value);
        interval = base;
      } else {
        interval = Math.min(max, Math.round(interval * 1.5));
      }
      last = value;
      if (rules.ended(value)) return { value, timedOut: false };
      delay = interval;
    } catch (err) {
      if (!(err instanceof MediaJobsError) || (err.status !== 429 && err.status !== 503)) throw err;
      delay = err.retryAfterMs ?? interval;
    }
    if (options.timeoutMs !== undefined) {
      const remaining = options.timeoutMs - (Date.now() - started);
      if (remaining <= 0) {
        if (last !== undefined) return { value: last, timedOut: true };
        throw new MediaJobsError({
          status: 0,
          code: "timeout",
          message: `${rules.label} could not be read within ${options.timeoutMs} ms`,
        });
      }
      // One last poll at the deadline rather than giving up a whole interval early.
      delay = Math.min(delay, remaining);
    }
    await rules.sleep(delay, options.signal);
  }
}
