import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseRetryAfter, retryDelayMs, sleep, untilAborted, withRetry } from "../../contracts/retry";

/** Settles `p` into a result the test can inspect after advancing fake time. */
function track<T>(p: Promise<T>) {
  const state: { done: boolean; value?: T; error?: unknown } = { done: false };
  p.then(
    (value) => Object.assign(state, { done: true, value }),
    (error: unknown) => Object.assign(state, { done: true, error }),
  );
  return state;
}

const flush = () => vi.advanceTimersByTimeAsync(0);

describe("sleep", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("resolves after the given time, not before", async () => {
    const s = track(sleep(1_000));
    await vi.advanceTimersByTimeAsync(999);
    expect(s.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(s).toEqual({ done: true, value: undefined });
  });

  it("rejects with the signal's reason as soon as the signal aborts", async () => {
    const ac = new AbortController();
    const s = track(sleep(60_000, ac.signal));
    const reason = new Error("lease lost");
    ac.abort(reason);
    await flush();
    expect(s.error).toBe(reason);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const reason = new Error("cancelled");
    const s = track(sleep(1_000, AbortSignal.abort(reason)));
    await flush();
    expect(s.error).toBe(reason);
  });
});

describe("untilAborted", () => {
  /** Work that cannot be stopped, settled by the test. */
  function work<T>() {
    let settle!: { resolve(v: T): void; reject(e: unknown): void };
    const promise = new Promise<T>((resolve, reject) => (settle = { resolve, reject }));
    return { promise, ...settle };
  }

  it("resolves with the work's value while the signal holds", async () => {
    const w = work<string>();
    const wait = untilAborted(w.promise, new AbortController().signal);
    w.resolve("done");
    await expect(wait).resolves.toBe("done");
  });

  it("rejects with the work's error while the signal holds", async () => {
    const w = work<string>();
    const wait = untilAborted(w.promise, new AbortController().signal);
    const failure = new Error("decode failed");
    w.reject(failure);
    await expect(wait).rejects.toBe(failure);
  });

  it("rejects with the signal's reason as soon as it aborts, without waiting for the work", async () => {
    const ac = new AbortController();
    const s = track(untilAborted(work<string>().promise, ac.signal));
    const reason = new Error("cancel requested");
    ac.abort(reason);
    await Promise.resolve();
    expect(s).toEqual({ done: true, error: reason });
  });

  it("rejects at once when the signal is already aborted, and leaves no unhandled rejection when the work fails later", async () => {
    const w = work<string>();
    const reason = new Error("cancel requested");
    await expect(untilAborted(w.promise, AbortSignal.abort(reason))).rejects.toBe(reason);
    const unhandled: unknown[] = [];
    const record = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", record);
    w.reject(new Error("encode failed"));
    await new Promise((r) => setImmediate(r));
    process.off("unhandledRejection", record);
    expect(unhandled).toEqual([]);
  });

  it("is the work itself without a signal", () => {
    const w = work<string>();
    expect(untilAborted(w.promise, undefined)).toBe(w.promise);
  });
});

describe("parseRetryAfter", () => {
  const NOW = Date.parse("2026-05-01T12:00:00Z");

  it("reads delay-seconds", () => {
    expect(parseRetryAfter("3", NOW)).toBe(3_000);
    expect(parseRetryAfter("0.5", NOW)).toBe(500);
  });

  it("reads an HTTP-date as the time left until then", () => {
    expect(parseRetryAfter("Fri, 01 May 2026 12:00:07 GMT", NOW)).toBe(7_000);
  });

  it("never answers a negative wait for a date in the past", () => {
    expect(parseRetryAfter("Fri, 01 May 2026 11:00:00 GMT", NOW)).toBe(0);
  });

  it("ignores an absent or unreadable header", () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("")).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
  });
});

describe("retryDelayMs", () => {
  const base = { baseMs: 100, maxMs: 1_000, jitter: "none" as const };

  it("doubles the step with each attempt", () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs({ ...base, attempt }))).toEqual([100, 200, 400, 800]);
  });

  it("never waits longer than the cap", () => {
    expect(retryDelayMs({ ...base, attempt: 10 })).toBe(1_000);
  });

  it("with equal jitter waits between half the step and the step", () => {
    expect(retryDelayMs({ attempt: 3, baseMs: 100, maxMs: 1_000, random: () => 0 })).toBe(200);
    expect(retryDelayMs({ attempt: 3, baseMs: 100, maxMs: 1_000, random: () => 0.999 })).toBeCloseTo(399.8);
  });

  it("with full jitter waits anywhere from zero to the step", () => {
    expect(retryDelayMs({ attempt: 3, baseMs: 100, maxMs: 1_000, jitter: "full", random: () => 0 })).toBe(0);
    expect(retryDelayMs({ attempt: 3, baseMs: 100, maxMs: 1_000, jitter: "full", random: () => 0.5 })).toBe(200);
  });

  it("waits at least as long as Retry-After asks", () => {
    expect(retryDelayMs({ ...base, attempt: 1, retryAfter: "0.5" })).toBe(500);
  });

  it("keeps the backoff when Retry-After asks for less", () => {
    expect(retryDelayMs({ ...base, attempt: 3, retryAfter: "0" })).toBe(400);
  });

  it("caps Retry-After too", () => {
    expect(retryDelayMs({ ...base, attempt: 1, retryAfter: "3600" })).toBe(1_000);
  });
});

describe("withRetry", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  const opts = { retries: 3, baseMs: 100, maxMs: 1_000, jitter: "none" as const };

  /** A function failing `failures` times, then answering "ok"; it records each attempt number. */
  function flaky(failures: number, error: (n: number) => unknown = (n) => new Error(`fail ${n}`)) {
    const attempts: number[] = [];
    const fn = (attempt: number) => {
      attempts.push(attempt);
      return attempts.length <= failures ? Promise.reject(error(attempt)) : Promise.resolve("ok");
    };
    return { fn, attempts };
  }

  it("returns the first success", async () => {
    const f = flaky(0);
    await expect(withRetry(f.fn, opts)).resolves.toBe("ok");
    expect(f.attempts).toEqual([1]);
  });

  it("retries failures after a capped exponential backoff", async () => {
    const f = flaky(2);
    const r = track(withRetry(f.fn, opts));
    await flush();
    expect(f.attempts).toEqual([1]);
    await vi.advanceTimersByTimeAsync(100);
    expect(f.attempts).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(199);
    expect(f.attempts).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(1);
    expect(r).toEqual({ done: true, value: "ok" });
  });

  it("rejects with the last failure once the retries are spent", async () => {
    const f = flaky(10);
    const r = track(withRetry(f.fn, opts));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(f.attempts).toEqual([1, 2, 3, 4]);
    expect((r.error as Error).message).toBe("fail 4");
  });

  it("does not retry a failure shouldRetry refuses", async () => {
    const f = flaky(10);
    const r = track(withRetry(f.fn, { ...opts, shouldRetry: () => false }));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(f.attempts).toEqual([1]);
    expect((r.error as Error).message).toBe("fail 1");
  });

  it("waits as long as the failure's Retry-After asks", async () => {
    const f = flaky(1, () => Object.assign(new Error("429"), { retryAfter: "0.7" }));
    const r = track(withRetry(f.fn, { ...opts, retryAfter: (e) => (e as { retryAfter: string }).retryAfter }));
    await vi.advanceTimersByTimeAsync(699);
    expect(f.attempts).toEqual([1]);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.value).toBe("ok");
  });

  it("rejects with the signal's reason when aborted during the wait, without another attempt", async () => {
    const ac = new AbortController();
    const f = flaky(10);
    const r = track(withRetry(f.fn, { ...opts, signal: ac.signal }));
    await vi.advanceTimersByTimeAsync(50);
    const reason = new Error("cancel");
    ac.abort(reason);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(r.error).toBe(reason);
    expect(f.attempts).toEqual([1]);
  });

  it("hands the signal to the attempt so it can stop work in flight", async () => {
    const ac = new AbortController();
    const seen: (AbortSignal | undefined)[] = [];
    await withRetry(
      (_n, signal) => {
        seen.push(signal);
        return Promise.resolve(1);
      },
      { ...opts, signal: ac.signal },
    );
    expect(seen).toEqual([ac.signal]);
  });

  it("stops retrying on the stop signal and rejects with the last failure", async () => {
    const stop = new AbortController();
    const f = flaky(10);
    const r = track(withRetry(f.fn, { ...opts, stopSignal: stop.signal }));
    await vi.advanceTimersByTimeAsync(50);
    stop.abort();
    await flush();
    expect((r.error as Error).message).toBe("fail 1");
    expect(f.attempts).toEqual([1]);
  });
});
