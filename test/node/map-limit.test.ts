import { describe, expect, it } from "vitest";
import { mapLimit } from "../../gpu-runner/services/shared/map-limit";

/** A task that resolves when the test says so, recording how many tasks run at once. */
function gate() {
  let running = 0;
  let most = 0;
  const waiting: Array<() => void> = [];
  return {
    task: async <T>(value: T): Promise<T> => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => waiting.push(resolve));
      running--;
      return value;
    },
    releaseAll: async () => {
      while (waiting.length > 0 || running > 0) {
        waiting.splice(0).forEach((r) => r());
        await new Promise((r) => setTimeout(r, 0));
      }
    },
    most: () => most,
  };
}

const never = new AbortController().signal;

describe("mapLimit", () => {
  it("never runs more than the limit at once", async () => {
    const g = gate();
    const done = mapLimit([1, 2, 3, 4, 5], 2, never, (x) => g.task(x));
    await g.releaseAll();
    await done;
    expect(g.most()).toBe(2);
  });

  it("keeps the input order whatever order the items finish in", async () => {
    const delays = [30, 0, 15, 5];
    const out = await mapLimit(delays, 3, never, (ms, _signal, i) => new Promise<string>((r) => setTimeout(() => r(`item ${i}`), ms)));
    expect(out).toEqual(["item 0", "item 1", "item 2", "item 3"]);
  });

  it("aborts the items still running when one fails, and starts no more", async () => {
    const started: number[] = [];
    const aborted: number[] = [];
    const run = mapLimit([0, 1, 2, 3], 2, never, (i, signal) => {
      started.push(i);
      if (i === 0) return Promise.reject(new Error("render 0 failed"));
      return new Promise<number>((_, reject) =>
        signal.addEventListener("abort", () => {
          aborted.push(i);
          reject(signal.reason);
        }),
      );
    });
    await expect(run).rejects.toThrow("render 0 failed");
    expect(started).toEqual([0, 1]);
    expect(aborted).toEqual([1]);
  });

  it("passes the caller's abort on to every item", async () => {
    const caller = new AbortController();
    const run = mapLimit(
      [0, 1],
      2,
      caller.signal,
      (_i, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    );
    caller.abort(new Error("job cancelled"));
    await expect(run).rejects.toThrow("job cancelled");
  });
});
