import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { diffSqlite, diffStores, fitLine, perMediaHour, snapshotSqlite, snapshotStores } from "../../bench/capacity-lib";

/**
 * bench/capacity.ts's accounting (bench/capacity-lib.ts): a job's footprint is the difference of two
 * snapshots of the stack's state dir; per media-hour is a line fitted over two media lengths.
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "capacity-accounting-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function database(file: string, sql: string): void {
  const db = new DatabaseSync(file);
  db.exec(sql);
  db.close();
}

describe("fitting per media-hour", () => {
  it("draws the line through two lengths: the fixed part per job and the part per second", () => {
    const fit = fitLine([
      { x: 30, y: 1300 },
      { x: 180, y: 4300 },
    ]);
    expect(fit.fixed).toBeCloseTo(700, 6);
    expect(fit.slope).toBeCloseTo(20, 6);
  });

  it("fits more than two lengths by least squares", () => {
    const fit = fitLine([
      { x: 0, y: 1 },
      { x: 1, y: 3 },
      { x: 2, y: 5 },
      { x: 3, y: 7.4 },
    ]);
    expect(fit.slope).toBeCloseTo(2.12, 6);
    expect(fit.fixed).toBeCloseTo(0.92, 6);
  });

  it("counts a media-hour as one one-hour job: the fixed part once plus 3,600 seconds", () => {
    expect(perMediaHour({ fixed: 700, slope: 20 })).toBe(700 + 72_000);
  });

  it("refuses points that share one length (no slope can be told)", () => {
    expect(() =>
      fitLine([
        { x: 60, y: 1 },
        { x: 60, y: 2 },
      ]),
    ).toThrow(/two or more different x/);
  });
});

describe("D1 rows and bytes between two snapshots", () => {
  it("counts rows inserted, updated and deleted, a row rewritten twice once", () => {
    const file = path.join(dir, "d1.sqlite");
    database(file, "CREATE TABLE jobs (id TEXT PRIMARY KEY, status TEXT); INSERT INTO jobs VALUES ('a', 'queued'), ('b', 'queued');");
    const before = snapshotSqlite(file);
    database(
      file,
      "UPDATE jobs SET status = 'running' WHERE id = 'a'; UPDATE jobs SET status = 'completed' WHERE id = 'a'; DELETE FROM jobs WHERE id = 'b'; INSERT INTO jobs VALUES ('c', 'queued');",
    );
    const d = diffSqlite(before, snapshotSqlite(file)).get("jobs");
    expect(d).toMatchObject({ inserted: 1, updated: 1, deleted: 1 });
  });

  it("counts the bytes a table's rows and its index entries take, under the table", () => {
    const file = path.join(dir, "d1.sqlite");
    database(file, "CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); CREATE INDEX t_body ON t(body);");
    const before = snapshotSqlite(file);
    database(file, `INSERT INTO t (body) VALUES ('${"x".repeat(1000)}');`);
    const d = diffSqlite(before, snapshotSqlite(file));
    expect([...d.keys()]).toEqual(["t"]);
    // The row's 1,000 bytes of text, once in the table and once in the index entry.
    expect(d.get("t")!.payload).toBeGreaterThanOrEqual(2000);
    expect(d.get("t")!.payload).toBeLessThan(2100);
  });

  it("counts an FTS5 index's shadow tables under the virtual table", () => {
    const file = path.join(dir, "d1.sqlite");
    database(file, "CREATE VIRTUAL TABLE chunks_fts USING fts5(body);");
    const before = snapshotSqlite(file);
    database(file, "INSERT INTO chunks_fts (body) VALUES ('the quick brown fox jumps over the lazy dog');");
    const d = diffSqlite(before, snapshotSqlite(file));
    expect([...d.keys()]).toEqual(["chunks_fts"]);
    expect(d.get("chunks_fts")!.inserted).toBeGreaterThan(0);
    expect(d.get("chunks_fts")!.payload).toBeGreaterThan(0);
  });

  it("leaves out tables nothing happened to", () => {
    const file = path.join(dir, "d1.sqlite");
    database(file, "CREATE TABLE a (x); CREATE TABLE b (x);");
    const before = snapshotSqlite(file);
    database(file, "INSERT INTO b VALUES (1);");
    expect([...diffSqlite(before, snapshotSqlite(file)).keys()]).toEqual(["b"]);
  });
});

describe("stores found in a stack's state dir", () => {
  /** The layout `wrangler dev --persist-to` and the local S3 server leave. */
  async function stateDir(): Promise<{ d1: string; job: string; s3: string; r2: string }> {
    const v3 = path.join(dir, "wrangler", "v3");
    const d1 = path.join(v3, "d1", "miniflare-D1DatabaseObject");
    const job = path.join(v3, "do", "media-jobs-JobDO");
    const r2 = path.join(v3, "r2", "media-jobs-data", "blobs");
    const s3 = path.join(dir, "s3", "media-local");
    for (const d of [d1, job, r2, s3]) await mkdir(d, { recursive: true });
    database(path.join(d1, "0a1b.sqlite"), "CREATE TABLE jobs (id TEXT);");
    database(path.join(d1, "metadata.sqlite"), "CREATE TABLE ignored (x);");
    return { d1, job, s3, r2 };
  }

  it("finds each Durable Object class by its folder and counts its objects and their bytes", async () => {
    const s = await stateDir();
    const before = snapshotStores(dir);
    database(
      path.join(s.job, "f00d.sqlite"),
      `CREATE TABLE _cf_KV (key TEXT PRIMARY KEY, value BLOB); INSERT INTO _cf_KV VALUES ('state', '${"s".repeat(500)}');`,
    );
    const d = diffStores(before, snapshotStores(dir)).durableObjects.get("media-jobs-JobDO")!;
    expect(d.files).toBe(1);
    expect(d.payload).toBeGreaterThanOrEqual(500);
  });

  it("reads D1 from the database file, not the namespace's metadata file", async () => {
    const s = await stateDir();
    const before = snapshotStores(dir);
    database(path.join(s.d1, "0a1b.sqlite"), "INSERT INTO jobs VALUES ('job_1');");
    database(path.join(s.d1, "metadata.sqlite"), "INSERT INTO ignored VALUES (1);");
    const d = diffStores(before, snapshotStores(dir));
    expect([...d.d1.keys()]).toEqual(["jobs"]);
    expect(d.d1.get("jobs")!.inserted).toBe(1);
  });

  it("counts the objects a job adds to the customer's bucket and to an emulated R2 bucket", async () => {
    const s = await stateDir();
    await writeFile(path.join(s.s3, "source.mp4._S3rver_object"), Buffer.alloc(5000));
    const before = snapshotStores(dir);
    await mkdir(path.join(s.s3, "out"), { recursive: true });
    await writeFile(path.join(s.s3, "out", "transcript.json._S3rver_object"), Buffer.alloc(1200));
    await writeFile(path.join(s.s3, "out", "transcript.json._S3rver_metadata.json"), "{}");
    await writeFile(path.join(s.r2, "blob-1"), Buffer.alloc(700));
    const d = diffStores(before, snapshotStores(dir));
    expect(d.buckets.get("media-local")).toEqual({ objects: 1, bytes: 1200 });
    expect(d.r2.get("media-jobs-data")).toEqual({ objects: 1, bytes: 700 });
  });
});
