import { DurableObject } from "cloudflare:workers";

/**
 * LaneSignal: wakes long-polling lease requests when work enters the runner lane.
 *
 * Responsibilities:
 * - a counter that moves each time a task is put in the lane (`notify`, called by the JobDO);
 * - holding a lease request that found the lane empty until the counter moves or its time is up.
 *
 * It holds no work (the lane is the `runner_tasks` table, durable-objects/runner-lane.ts) and nothing
 * durable: after an eviction the counter restarts, which a waiter reads as "moved" and simply
 * looks at the lane again. A missed or duplicated signal costs one extra look, never a lost task.
 */
export class LaneSignal extends DurableObject {
  private seq = 0;
  private readonly waiters = new Set<() => void>();

  async current(): Promise<number> {
    return this.seq;
  }

  async notify(): Promise<void> {
    this.seq += 1;
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  /** Resolves with the counter once it differs from `seen`, or after `ms`. */
  async waitAfter(seen: number, ms: number): Promise<number> {
    if (this.seq !== seen) return this.seq;
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiters.add(wake);
    });
    return this.seq;
  }
}

/** The single lane signal, by name. */
export function laneSignal(ns: DurableObjectNamespace<LaneSignal>): Pick<LaneSignal, "current" | "notify" | "waitAfter"> {
  return ns.get(ns.idFromName("runner-lane")) as unknown as Pick<LaneSignal, "current" | "notify" | "waitAfter">;
}
