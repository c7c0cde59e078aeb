import type { MiddlewareHandler } from "hono";

/**
 * Per-phase durations of one request, answered as a `Server-Timing` header (docs/api.md, "Server
 * timings"). Only routes that record phases get the header; `bench/api.ts` reads it to show where
 * a create spends its time.
 *
 * The Workers runtime advances its clock only across I/O, so a phase that is pure computation
 * reads 0 there: the figures are waits (D1, Durable Object, queue, S3 round trips), not CPU.
 */
export class ServerTiming {
  private readonly entries: Array<{ name: string; ms: number }> = [];

  add(name: string, ms: number): void {
    this.entries.push({ name, ms });
  }

  /** Times `work` under `name`, also when it throws (the header then shows how far it got). */
  async time<T>(name: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.add(name, performance.now() - started);
    }
  }

  get empty(): boolean {
    return this.entries.length === 0;
  }

  /** `name;dur=ms` entries in the order they were recorded (RFC: server-timing metric syntax). */
  header(): string {
    return this.entries.map((e) => `${e.name};dur=${e.ms.toFixed(1)}`).join(", ");
  }
}

/**
 * Gives the request a ServerTiming (before authentication, so it can time itself) and answers its
 * phases, plus `total`, as `Server-Timing` when any were recorded. Mounted on POST /v1/jobs.
 */
export const serverTiming: MiddlewareHandler<{ Variables: { timing?: ServerTiming } }> = async (c, next) => {
  const timing = new ServerTiming();
  c.set("timing", timing);
  const started = performance.now();
  await next();
  if (timing.empty) return;
  timing.add("total", performance.now() - started);
  c.res.headers.append("Server-Timing", timing.header());
};
