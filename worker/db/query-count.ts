import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "../env";
import { formatQueryCount, ISOLATE_HEADER, REQUEST_HEADER, type D1QueryCount } from "./query-count-header";

/**
 * A local-only count of the D1 statements the code makes, for bench/capacity.ts (docs/capacity.md):
 * how many statements each hot route sends to the one D1 database, which runs them one at a time.
 *
 * Enabled only when the Worker var `COUNT_D1_QUERIES` is "true". Production never sets it (it is
 * not in wrangler.toml; the bench passes it to `wrangler dev` with `--var`), so there the binding
 * is the platform's own, unwrapped.
 *
 * What counts: every `first`, `run`, `all` and `raw` of a prepared statement is one statement and
 * one call; a `batch` of n statements is n statements and one call; `exec` is one call and one
 * statement (it is not used on hot paths). Rows read and written are D1's own `meta` figures,
 * which only `run`, `all` and `batch` return (`first` and `raw` give rows without them), so they
 * are a lower bound.
 *
 * Two tallies: the request's own (the Worker's statements while it served the request), and the
 * isolate's (every counted statement since the isolate started: Worker requests, the JobDO, queue
 * consumers). On the local stack the Worker and its Durable Objects share one isolate, so the
 * difference of the isolate tally between two sequential responses is everything a request caused,
 * the JobDO's mirror and lane writes included.
 */

type Meta = { meta?: { rows_read?: number; rows_written?: number } };

/** A running count; `parent` (the isolate's) receives every figure this one does. */
export class D1Tally implements D1QueryCount {
  statements = 0;
  calls = 0;
  rowsRead = 0;
  rowsWritten = 0;

  constructor(private readonly parent?: D1Tally) {}

  call(statements: number): void {
    this.statements += statements;
    this.calls += 1;
    this.parent?.call(statements);
  }

  results(results: readonly Meta[]): void {
    for (const r of results) {
      this.rowsRead += r.meta?.rows_read ?? 0;
      this.rowsWritten += r.meta?.rows_written ?? 0;
    }
    this.parent?.results(results);
  }

  snapshot(): D1QueryCount {
    return { statements: this.statements, calls: this.calls, rowsRead: this.rowsRead, rowsWritten: this.rowsWritten };
  }
}

/** Every counted statement in this isolate since it started. */
export const isolateTally = new D1Tally();

class CountingStatement implements D1PreparedStatement {
  constructor(
    readonly inner: D1PreparedStatement,
    private readonly tally: D1Tally,
  ) {}

  bind(...values: unknown[]): D1PreparedStatement {
    return new CountingStatement(this.inner.bind(...values), this.tally);
  }

  first<T = unknown>(colName: string): Promise<T | null>;
  first<T = Record<string, unknown>>(): Promise<T | null>;
  first<T>(colName?: string): Promise<T | null> {
    this.tally.call(1);
    return colName === undefined ? this.inner.first<T>() : this.inner.first<T>(colName);
  }

  async run<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    this.tally.call(1);
    const r = await this.inner.run<T>();
    this.tally.results([r]);
    return r;
  }

  async all<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    this.tally.call(1);
    const r = await this.inner.all<T>();
    this.tally.results([r]);
    return r;
  }

  raw<T = unknown[]>(options: { columnNames: true }): Promise<[string[], ...T[]]>;
  raw<T = unknown[]>(options?: { columnNames?: false }): Promise<T[]>;
  raw<T = unknown[]>(options?: { columnNames?: boolean }): Promise<[string[], ...T[]] | T[]> {
    this.tally.call(1);
    return options?.columnNames === true ? this.inner.raw<T>({ columnNames: true }) : this.inner.raw<T>();
  }
}

/** The platform's statements inside ours: D1's batch accepts only its own. */
const unwrap = (statements: D1PreparedStatement[]) => statements.map((s) => (s instanceof CountingStatement ? s.inner : s));

async function countedBatch<T>(
  tally: D1Tally,
  run: (s: D1PreparedStatement[]) => Promise<D1Result<T>[]>,
  statements: D1PreparedStatement[],
) {
  tally.call(statements.length);
  const results = await run(unwrap(statements));
  tally.results(results);
  return results;
}

class CountingSession implements D1DatabaseSession {
  constructor(
    private readonly inner: D1DatabaseSession,
    private readonly tally: D1Tally,
  ) {}
  prepare(query: string): D1PreparedStatement {
    return new CountingStatement(this.inner.prepare(query), this.tally);
  }
  batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    return countedBatch(this.tally, (s) => this.inner.batch<T>(s), statements);
  }
  getBookmark(): D1SessionBookmark | null {
    return this.inner.getBookmark();
  }
}

class CountingD1 implements D1Database {
  constructor(
    private readonly inner: D1Database,
    private readonly tally: D1Tally,
  ) {}
  prepare(query: string): D1PreparedStatement {
    return new CountingStatement(this.inner.prepare(query), this.tally);
  }
  batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    return countedBatch(this.tally, (s) => this.inner.batch<T>(s), statements);
  }
  exec(query: string): Promise<D1ExecResult> {
    this.tally.call(1);
    return this.inner.exec(query);
  }
  withSession(constraintOrBookmark?: D1SessionBookmark | D1SessionConstraint): D1DatabaseSession {
    return new CountingSession(this.inner.withSession(constraintOrBookmark), this.tally);
  }
  dump(): Promise<ArrayBuffer> {
    return this.inner.dump();
  }
}

/** `d1`, counting into `tally`. */
export function countingD1(d1: D1Database, tally: D1Tally): D1Database {
  return new CountingD1(d1, tally);
}

export const countingEnabled = (env: { COUNT_D1_QUERIES?: string }): boolean => env.COUNT_D1_QUERIES === "true";

/** For the JobDO and the queue consumers: their env with a D1 that counts into the isolate's tally, when counting is on. */
export function withCountedD1<E extends { DB: D1Database; COUNT_D1_QUERIES?: string }>(env: E): E {
  return countingEnabled(env) ? { ...env, DB: countingD1(env.DB, isolateTally) } : env;
}

/**
 * The Worker's requests: the request's own statements, and the isolate's tally after it, as
 * response headers (REQUEST_HEADER, ISOLATE_HEADER). A no-op unless counting is on.
 */
export const countD1Queries: MiddlewareHandler<AppBindings> = async (c, next) => {
  // A request made in process by another (the console's pages call the API so) is counted by the outer one.
  if (!countingEnabled(c.env) || c.env.DB instanceof CountingD1) return next();
  const tally = new D1Tally(isolateTally);
  c.env = { ...c.env, DB: countingD1(c.env.DB, tally) };
  await next();
  c.res.headers.set(REQUEST_HEADER, formatQueryCount(tally));
  c.res.headers.set(ISOLATE_HEADER, formatQueryCount(isolateTally));
};
