import { drizzle } from "drizzle-orm/d1";
import { newerBookmark } from "../../contracts/d1-bookmark";

export type Db = ReturnType<typeof getDb>;

/**
 * A drizzle client over the binding (or the request's session). Without the schema: nothing uses the
 * relational query API (`db.query.*`), and handing drizzle the schema made every call rebuild its
 * relational config, ~0.6 ms of CPU per request (a profile of the search route, bench/search-latency.ts).
 */
export function getDb(d1: D1Database) {
  return drizzle(d1);
}

/** A built drizzle query (not run) as a D1 statement, for a native `batch` beside raw statements. */
export function boundStatement(d1: D1Database, query: { toSQL(): { sql: string; params: unknown[] } }): D1PreparedStatement {
  const q = query.toSQL();
  return d1.prepare(q.sql).bind(...q.params);
}

/**
 * D1 read replication (docs/deploy.md, "Read replication"): a request's queries run in one D1
 * session, so they are sequentially consistent with each other, and the session's bookmark goes back
 * to the client, which sends it with its next request to read at least what it wrote.
 *
 * A request's session is handed to the code below it as a `D1Database` (the wrapper `SessionDb`),
 * so every `getDb(env.DB)` and `env.DB.prepare` of the request joins it without knowing.
 */

/** A bookmark as D1 gives them (`00000085-0000024c-00004c6d-8e61…`): hex groups. Anything else from a client is not one. */
const BOOKMARK_PATTERN = /^[0-9a-f]{8}(?:-[0-9a-f]{1,64}){1,8}$/i;

export function isBookmark(value: string | null | undefined): value is string {
  return typeof value === "string" && value.length <= 256 && BOOKMARK_PATTERN.test(value);
}

/**
 * A D1 session seen as a D1Database. D1's session object has only `prepare` and `batch`; the rest
 * go to the database outside the session (nothing in the request path uses them).
 */
class SessionDb implements D1Database {
  /** A bookmark newer than the session's own, learnt from a write made elsewhere for this request (a Durable Object's). */
  private noted: string | null = null;

  constructor(
    private readonly raw: D1Database,
    private readonly session: D1DatabaseSession,
    /** The bookmark the session started from, if it started from one: an answer never goes back before it. */
    private readonly from: string | null,
  ) {}

  prepare(query: string): D1PreparedStatement {
    return this.session.prepare(query);
  }

  batch<T = unknown>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> {
    return this.session.batch<T>(statements);
  }

  exec(query: string): Promise<D1ExecResult> {
    return this.raw.exec(query);
  }

  withSession(constraintOrBookmark?: D1SessionBookmark | D1SessionConstraint): D1DatabaseSession {
    return this.raw.withSession(constraintOrBookmark);
  }

  dump(): Promise<ArrayBuffer> {
    return this.raw.dump();
  }

  note(bookmark: string): void {
    this.noted = newerBookmark(this.noted, bookmark);
  }

  bookmark(): string | null {
    return newerBookmark(newerBookmark(this.from, this.session.getBookmark()), this.noted);
  }
}

export interface RequestSession {
  /** The database for the request's code: its queries run in the session. */
  db: D1Database;
  /** The latest bookmark: the session's own, or a newer one noted for it; null before any query. */
  bookmark(): string | null;
}

/**
 * Opens the request's session: `first-primary` for a request that writes (its first query on the
 * primary, so whatever it reads before writing is current), a client's bookmark for a read that
 * sent one, else `first-unconstrained` (any replica). A database that is already a request's session
 * (the console's pages call the API in process) is that same session: the page and its API calls are
 * one logical session.
 */
export function openSession(d1: D1Database, start: D1SessionConstraint | string): RequestSession {
  const db = d1 instanceof SessionDb ? d1 : new SessionDb(d1, d1.withSession(start), isBookmark(start) ? start : null);
  return { db, bookmark: () => db.bookmark() };
}

/**
 * Records that a write made outside the request's session for this request (a Durable Object's
 * D1 mirror) is at `bookmark`, so the bookmark answered covers it. A plain database ignores it.
 */
export function noteBookmark(d1: D1Database, bookmark: string | null | undefined): void {
  if (bookmark && d1 instanceof SessionDb) d1.note(bookmark);
}
