import { createHash } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";

/**
 * bench/capacity.ts's accounting: what every store of the local stack holds, read from the stack's
 * state dir (wrangler's `--persist-to` and the local S3 server's directory), so a job's footprint is
 * the difference of two snapshots. Stores are discovered, not named: any D1 database, any Durable
 * Object class and any R2 bucket wrangler emulates there is found, so the bench keeps measuring
 * when data moves from D1 to R2 or to Durable Objects.
 *
 * Bytes are SQLite's own: `dbstat`'s `payload` (the bytes of the rows' and index entries' cells,
 * overflow pages included, page headers and free space not) per table, its indexes and, for an
 * FTS5 table, its shadow tables; `pgsize` (whole pages) beside it. Rows written are rows that
 * differ between the snapshots (by primary key, or rowid for a table without one, and a hash of
 * the row): a row rewritten five times counts once.
 */

export interface TableState {
  /** Row key → hash of the row's values. */
  rows: Map<string, string>;
  /** dbstat payload bytes of the table, its indexes and shadow tables. */
  payload: number;
  /** dbstat page bytes of the same. */
  pages: number;
}

/** A SQLite database as groups: a table with its indexes, or a virtual table with its shadow tables. */
export type SqliteSnapshot = Map<string, TableState>;

export interface TableDiff {
  inserted: number;
  updated: number;
  deleted: number;
  payload: number;
  pages: number;
}

export const rowsWritten = (d: TableDiff): number => d.inserted + d.updated + d.deleted;

function hashRow(row: Record<string, unknown>): string {
  const h = createHash("sha1");
  for (const v of Object.values(row)) {
    if (v instanceof Uint8Array) h.update(v);
    else h.update(v === null ? "\u0000null" : `${typeof v}:${String(v)}`);
    h.update("\u0001");
  }
  return h.digest("base64");
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

interface SchemaRow {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** Which group a schema object's bytes count under: its table, or the virtual table it shadows. */
export function groupOf(name: string, tblName: string, virtualTables: readonly string[]): string {
  const owner = virtualTables.find((v) => name.startsWith(`${v}_`));
  return owner ?? tblName;
}

/** Reads a SQLite file (read-only; the writer may hold it open in WAL mode). */
export function snapshotSqlite(file: string, opts: { rows?: boolean } = {}): SqliteSnapshot {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const schema = db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema").all() as unknown as SchemaRow[];
    const virtual = schema.filter((s) => s.type === "table" && /^CREATE VIRTUAL TABLE/i.test(s.sql ?? "")).map((s) => s.name);
    const out: SqliteSnapshot = new Map();
    const group = (name: string): TableState => {
      let g = out.get(name);
      if (!g) out.set(name, (g = { rows: new Map(), payload: 0, pages: 0 }));
      return g;
    };
    const owner = new Map(schema.map((s) => [s.name, groupOf(s.name, s.tbl_name, virtual)]));
    const stats = db
      .prepare("SELECT name, sum(payload) AS payload, sum(pgsize) AS pages FROM dbstat GROUP BY name")
      .all() as unknown as Array<{
      name: string;
      payload: number;
      pages: number;
    }>;
    for (const s of stats) {
      if (s.name === "sqlite_schema") continue;
      const g = group(owner.get(s.name) ?? s.name);
      g.payload += s.payload;
      g.pages += s.pages;
    }
    if (opts.rows !== false) {
      for (const t of schema) {
        if (t.type !== "table" || virtual.includes(t.name) || t.name.startsWith("sqlite_")) continue;
        const g = group(owner.get(t.name) ?? t.name);
        // The declared primary key when there is one (a rowid can be reused after a delete), else the rowid.
        const pk = (db.prepare(`PRAGMA table_info(${quote(t.name)})`).all() as unknown as Array<{ name: string; pk: number }>)
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => c.name);
        const keyOf = pk.length > 0 ? (r: Record<string, unknown>) => pk.map((c) => String(r[c])).join("\u0001") : null;
        const sql = keyOf ? `SELECT * FROM ${quote(t.name)}` : `SELECT rowid AS "__rowid", * FROM ${quote(t.name)}`;
        for (const row of db.prepare(sql).iterate() as Iterable<Record<string, unknown>>) {
          const key = keyOf ? keyOf(row) : String(row["__rowid"]);
          g.rows.set(`${t.name}\u0000${key}`, hashRow(row));
        }
      }
    }
    return out;
  } finally {
    db.close();
  }
}

/** What changed from `a` to `b`, per group (groups unchanged in rows and bytes left out). */
export function diffSqlite(a: SqliteSnapshot, b: SqliteSnapshot): Map<string, TableDiff> {
  const out = new Map<string, TableDiff>();
  for (const name of new Set([...a.keys(), ...b.keys()])) {
    const before = a.get(name);
    const after = b.get(name);
    const d: TableDiff = {
      inserted: 0,
      updated: 0,
      deleted: 0,
      payload: (after?.payload ?? 0) - (before?.payload ?? 0),
      pages: (after?.pages ?? 0) - (before?.pages ?? 0),
    };
    for (const [k, h] of after?.rows ?? []) {
      const old = before?.rows.get(k);
      if (old === undefined) d.inserted++;
      else if (old !== h) d.updated++;
    }
    for (const k of before?.rows.keys() ?? []) if (!after?.rows.has(k)) d.deleted++;
    if (rowsWritten(d) || d.payload || d.pages) out.set(name, d);
  }
  return out;
}

export interface SqliteTotals {
  /** Files (one per Durable Object, or per D1 database). */
  files: number;
  payload: number;
  pages: number;
  /** The files' sizes on disk, write-ahead logs included. */
  diskBytes: number;
}

export interface ObjectTotals {
  objects: number;
  bytes: number;
}

/** Every store of a local stack's state dir, found by walking it. */
export interface StoreSnapshot {
  /** Each D1 database's tables (keyed by its file's name). */
  d1: Map<string, SqliteSnapshot>;
  /** Each Durable Object class (`<script>-<Class>`): its objects' SQLite storage. */
  durableObjects: Map<string, SqliteTotals>;
  /** Each R2 bucket wrangler emulates: its blob files (object bodies). */
  r2: Map<string, ObjectTotals>;
  /** The customer's buckets in the local S3 server: key → size. */
  buckets: Map<string, Map<string, number>>;
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : e.isFile() ? [path.join(dir, e.name)] : [],
  );
}

const size = (f: string) => (existsSync(f) ? statSync(f).size : 0);
const isDataSqlite = (f: string) => f.endsWith(".sqlite") && path.basename(f) !== "metadata.sqlite";
const dirs = (dir: string) => (existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()) : []);

/** The local S3 server (s3rver) keeps each object as `<key>._S3rver_object`. */
const S3RVER_SUFFIX = "._S3rver_object";

export function snapshotStores(stateDir: string, opts: { rows?: boolean } = {}): StoreSnapshot {
  const v3 = path.join(stateDir, "wrangler", "v3");
  const d1 = new Map<string, SqliteSnapshot>();
  for (const ns of dirs(path.join(v3, "d1")))
    for (const f of walk(path.join(v3, "d1", ns.name)).filter(isDataSqlite)) d1.set(path.basename(f, ".sqlite"), snapshotSqlite(f, opts));

  const durableObjects = new Map<string, SqliteTotals>();
  for (const ns of dirs(path.join(v3, "do"))) {
    const t: SqliteTotals = { files: 0, payload: 0, pages: 0, diskBytes: 0 };
    for (const f of walk(path.join(v3, "do", ns.name)).filter(isDataSqlite)) {
      t.files++;
      t.diskBytes += size(f) + size(`${f}-wal`);
      for (const g of snapshotSqlite(f, { rows: false }).values()) {
        t.payload += g.payload;
        t.pages += g.pages;
      }
    }
    durableObjects.set(ns.name, t);
  }

  // Wrangler keeps an R2 bucket's object bodies as blob files in a folder named for the bucket, and
  // their index in the bucket object's SQLite (under miniflare-R2BucketObject, not counted here).
  const r2 = new Map<string, ObjectTotals>();
  for (const ns of dirs(path.join(v3, "r2"))) {
    const blobs = walk(path.join(v3, "r2", ns.name)).filter((f) => !/\.sqlite(-wal|-shm)?$/.test(f));
    if (ns.name.startsWith("miniflare-") && blobs.length === 0) continue;
    r2.set(ns.name, { objects: blobs.length, bytes: blobs.reduce((n, f) => n + size(f), 0) });
  }

  const buckets = new Map<string, Map<string, number>>();
  for (const b of dirs(path.join(stateDir, "s3"))) {
    const root = path.join(stateDir, "s3", b.name);
    const keys = new Map<string, number>();
    for (const f of walk(root).filter((x) => x.endsWith(S3RVER_SUFFIX)))
      keys.set(path.relative(root, f).slice(0, -S3RVER_SUFFIX.length), size(f));
    buckets.set(b.name, keys);
  }
  return { d1, durableObjects, r2, buckets };
}

export interface StoreDiff {
  /** Per D1 table (`<table>` when there is one database, else `<db>/<table>`). */
  d1: Map<string, TableDiff>;
  durableObjects: Map<string, { files: number; payload: number; diskBytes: number }>;
  r2: Map<string, ObjectTotals>;
  /** Objects added or changed in the customer's buckets, and the bytes that added. */
  buckets: Map<string, ObjectTotals>;
}

export function diffStores(a: StoreSnapshot, b: StoreSnapshot): StoreDiff {
  const d1 = new Map<string, TableDiff>();
  const oneDb = b.d1.size <= 1;
  for (const [db, after] of b.d1)
    for (const [table, d] of diffSqlite(a.d1.get(db) ?? new Map(), after)) d1.set(oneDb ? table : `${db}/${table}`, d);
  const durableObjects = new Map<string, { files: number; payload: number; diskBytes: number }>();
  for (const [cls, t] of b.durableObjects) {
    const o = a.durableObjects.get(cls);
    durableObjects.set(cls, {
      files: t.files - (o?.files ?? 0),
      payload: t.payload - (o?.payload ?? 0),
      diskBytes: t.diskBytes - (o?.diskBytes ?? 0),
    });
  }
  const r2 = new Map<string, ObjectTotals>();
  for (const [name, t] of b.r2) {
    const o = a.r2.get(name);
    r2.set(name, { objects: t.objects - (o?.objects ?? 0), bytes: t.bytes - (o?.bytes ?? 0) });
  }
  const buckets = new Map<string, ObjectTotals>();
  for (const [name, keys] of b.buckets) {
    const old = a.buckets.get(name) ?? new Map<string, number>();
    let objects = 0;
    let bytes = 0;
    for (const [k, s] of keys) {
      const was = old.get(k);
      if (was === undefined) objects++;
      bytes += s - (was ?? 0);
    }
    for (const [k, s] of old) if (!keys.has(k)) bytes -= s;
    buckets.set(name, { objects, bytes });
  }
  return { d1, durableObjects, r2, buckets };
}

/** Sums over a diff's D1 tables. */
export function d1Totals(d: StoreDiff): TableDiff {
  const t: TableDiff = { inserted: 0, updated: 0, deleted: 0, payload: 0, pages: 0 };
  for (const x of d.d1.values()) {
    t.inserted += x.inserted;
    t.updated += x.updated;
    t.deleted += x.deleted;
    t.payload += x.payload;
    t.pages += x.pages;
  }
  return t;
}

export interface LineFit {
  /** Per job, whatever its length. */
  fixed: number;
  /** Per second of media. */
  slope: number;
}

/**
 * Least squares `y = fixed + slope · x` over the points (two points: the line through them). Needs
 * at least two distinct x.
 */
export function fitLine(points: ReadonlyArray<{ x: number; y: number }>): LineFit {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  if (n < 2 || sxx === 0) throw new Error("fitLine needs points at two or more different x");
  const slope = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx;
  return { fixed: my - slope * mx, slope };
}

/** One media-hour processed as one-hour jobs: one job's fixed part plus 3,600 seconds. */
export const perMediaHour = (f: LineFit): number => f.fixed + 3600 * f.slope;

export interface MediaHourFit extends LineFit {
  /** The figure at one one-hour job. */
  perHour: number;
  /** The points fell with length (a figure that does not grow with the media, and noise): read as flat, their mean per job. */
  flat: boolean;
}

/**
 * Per media-hour from per-job figures at several lengths: the fitted line at 3,600 s. A falling line
 * (thumbnail images, say, whose size depends on the frames picked, not on the length) would
 * extrapolate to less than nothing; it is read as flat instead: the mean per job, whatever the length.
 */
export function mediaHourFit(points: ReadonlyArray<{ x: number; y: number }>): MediaHourFit {
  const fit = fitLine(points);
  if (fit.slope >= 0) return { ...fit, perHour: perMediaHour(fit), flat: false };
  const mean = points.reduce((n, p) => n + p.y, 0) / points.length;
  return { fixed: mean, slope: 0, perHour: mean, flat: true };
}
