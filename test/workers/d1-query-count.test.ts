import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { getDb } from "../../worker/db/client";
import { countD1Queries, countingD1, D1Tally, isolateTally, withCountedD1 } from "../../worker/db/query-count";
import { formatQueryCount, parseQueryCount, REQUEST_HEADER } from "../../worker/db/query-count-header";
import { workspaces } from "../../worker/db/schema";
import type { AppBindings } from "../../worker/env";
import { unique } from "./helpers/tenant";

/**
 * The local-only D1 statement counter (worker/db/query-count.ts) that bench/capacity.ts reads: it
 * counts what the code sends to the real D1 binding, and is off unless COUNT_D1_QUERIES is "true".
 */

const insertWorkspace = (db: D1Database) =>
  db
    .prepare("INSERT INTO workspaces (id, name, plan, created_at) VALUES (?, ?, 'free', ?)")
    .bind(unique("wsp"), unique("count"), new Date().toISOString());

describe("counting D1 statements", () => {
  it("counts each statement a prepared statement runs, and a batch as its statements in one call", async () => {
    const tally = new D1Tally();
    const db = countingD1(env.DB, tally);
    await db.prepare("SELECT 1 AS one").first();
    await db.prepare("SELECT 1 AS one").raw();
    await db.batch([insertWorkspace(db), insertWorkspace(db)]);
    expect(tally.snapshot()).toMatchObject({ statements: 4, calls: 3 });
  });

  it("sums the rows D1 itself reports read and written", async () => {
    const tally = new D1Tally();
    const result = await insertWorkspace(countingD1(env.DB, tally)).run();
    expect(result.meta.rows_written).toBeGreaterThan(0);
    expect(tally.rowsWritten).toBe(result.meta.rows_written);
    expect(tally.rowsRead).toBe(result.meta.rows_read);
  });

  it("passes every figure on to the isolate's tally", async () => {
    const isolate = new D1Tally();
    const request = new D1Tally(isolate);
    await countingD1(env.DB, request).prepare("SELECT 1").all();
    await countingD1(env.DB, new D1Tally(isolate)).prepare("SELECT 1").all();
    expect(request.statements).toBe(1);
    expect(isolate.statements).toBe(2);
  });

  it("counts statements made through a D1 session", async () => {
    const tally = new D1Tally();
    const session = countingD1(env.DB, tally).withSession("first-primary");
    await session.prepare("SELECT 1").first();
    await session.batch([session.prepare("SELECT 1"), session.prepare("SELECT 2")]);
    expect(tally.snapshot()).toMatchObject({ statements: 3, calls: 2 });
  });

  it("counts the queries drizzle makes through the counted binding", async () => {
    const tally = new D1Tally();
    await getDb(countingD1(env.DB, tally)).select().from(workspaces).limit(1).all();
    expect(tally.statements).toBe(1);
  });
});

describe("switching the counter on", () => {
  const app = new Hono<AppBindings>();
  app.use(countD1Queries);
  app.get("/two", async (c) => {
    await c.env.DB.prepare("SELECT 1").first();
    await c.env.DB.prepare("SELECT 2").first();
    return c.text("ok");
  });

  it("answers the request's statements in a response header when COUNT_D1_QUERIES is true", async () => {
    const res = await app.request("/two", {}, { ...env, COUNT_D1_QUERIES: "true" });
    expect(parseQueryCount(res.headers.get(REQUEST_HEADER))).toMatchObject({ statements: 2, calls: 2 });
  });

  it("counts a request made in process by another once, in the outer request", async () => {
    const outer = new Hono<AppBindings>();
    outer.use(countD1Queries);
    outer.get("/outer", async (c) => {
      await c.env.DB.prepare("SELECT 0").first();
      return app.fetch(new Request("http://in-process/two"), c.env);
    });
    const before = isolateTally.statements;
    const res = await outer.request("/outer", {}, { ...env, COUNT_D1_QUERIES: "true" });
    expect(parseQueryCount(res.headers.get(REQUEST_HEADER))).toMatchObject({ statements: 3 });
    expect(isolateTally.statements - before).toBe(3);
  });

  it("adds no header and leaves the binding as it is when COUNT_D1_QUERIES is not set", async () => {
    const res = await app.request("/two", {}, { ...env });
    expect(res.headers.get(REQUEST_HEADER)).toBeNull();
    expect(withCountedD1(env).DB).toBe(env.DB);
  });
});

describe("the count's header", () => {
  it("reads back what it writes", () => {
    const count = { statements: 5, calls: 4, rowsRead: 12, rowsWritten: 3 };
    expect(formatQueryCount(count)).toBe("statements=5;calls=4;rows-read=12;rows-written=3");
    expect(parseQueryCount(formatQueryCount(count))).toEqual(count);
  });

  it("reads a missing or malformed value as no count", () => {
    expect(parseQueryCount(null)).toBeNull();
    expect(parseQueryCount("statements=5;calls=4")).toBeNull();
    expect(parseQueryCount("statements=x;calls=4;rows-read=1;rows-written=1")).toBeNull();
  });
});
