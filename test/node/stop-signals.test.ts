import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { DUPLICATE_SIGNAL_MS, onStopSignals } from "../../gpu-runner/stop-signals";

/** Stop signals as the runner and `npm run dev` read them, on a fake process and a fake clock. */
function arrange() {
  const target = new EventEmitter();
  let now = 1_000;
  const calls: string[] = [];
  onStopSignals(
    {
      stop: (s) => calls.push(`stop:${s}`),
      force: (s) => calls.push(`force:${s}`),
      duplicate: (s) => calls.push(`duplicate:${s}`),
    },
    { target, now: () => now },
  );
  return {
    calls,
    signal(name: "SIGINT" | "SIGTERM", afterMs = 0) {
      now += afterMs;
      target.emit(name);
    },
  };
}

describe("stop signals", () => {
  it("the first signal stops gracefully", () => {
    const p = arrange();
    p.signal("SIGTERM");
    expect(p.calls).toEqual(["stop:SIGTERM"]);
  });

  it("repeats within the duplicate window (one Ctrl-C through npm and tsx) are the same signal", () => {
    const p = arrange();
    p.signal("SIGINT");
    p.signal("SIGINT", 3);
    p.signal("SIGINT", 30);
    p.signal("SIGTERM", DUPLICATE_SIGNAL_MS - 40);
    expect(p.calls).toEqual(["stop:SIGINT", "duplicate:SIGINT", "duplicate:SIGINT", "duplicate:SIGTERM"]);
  });

  it("a signal after the duplicate window forces the stop", () => {
    const p = arrange();
    p.signal("SIGINT");
    p.signal("SIGINT", DUPLICATE_SIGNAL_MS);
    expect(p.calls).toEqual(["stop:SIGINT", "force:SIGINT"]);
  });
});
