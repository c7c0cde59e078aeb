/**
 * The tables of one project's catalog object (durable-objects/catalog-do.ts), in its own SQLite
 * storage. Created on construction with IF NOT EXISTS: a new statement appended here is the object's
 * migration (no column of a created table is ever changed in place).
 *
 * - `entries`: one row per indexed transcript, naming its live generation (what the D1 table
 *   `catalog_entries` held for every project).
 * - `chunks`: every generation's chunks (`{jobId}.{attempt}`); AUTOINCREMENT, so a row id is never
 *   reused and a Vectorize point left behind by an eventually consistent delete never names a new chunk.
 * - no sparse index: the object keeps it in memory (catalog/bm25.ts). The FTS5 table `chunks_fts` and
 *   its triggers that earlier objects made are dropped (the statements at the end).
 * - `vectors`: unit vectors (little-endian float32) of the chunks, when the collection keeps its
 *   vectors in the object (vector store `durable-object`); empty when they live in Vectorize.
 */
export const CATALOG_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS entries (
    text_source_id TEXT PRIMARY KEY,
    generation TEXT NOT NULL,
    job_id TEXT NOT NULL,
    chunk_count INTEGER NOT NULL,
    segment_count INTEGER NOT NULL,
    transcript_revision INTEGER NOT NULL,
    language TEXT,
    dense_engine TEXT NOT NULL,
    dense_model TEXT NOT NULL,
    dimensions INTEGER NOT NULL,
    sparse_engine TEXT NOT NULL,
    indexed_at TEXT NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_id TEXT NOT NULL UNIQUE,
    text_source_id TEXT NOT NULL,
    generation TEXT NOT NULL,
    position INTEGER NOT NULL,
    start REAL NOT NULL,
    "end" REAL NOT NULL,
    segment_ids TEXT NOT NULL,
    text TEXT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS chunks_source ON chunks (text_source_id, generation)`,
  `CREATE TABLE IF NOT EXISTS vectors (
    chunk_row_id INTEGER PRIMARY KEY,
    text_source_id TEXT NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL
  )`,
  // Speaker labels of a diarized transcript's chunks (a table of its own: `chunks` is never altered in place).
  `CREATE TABLE IF NOT EXISTS chunk_speakers (
    chunk_row_id INTEGER PRIMARY KEY,
    speakers TEXT NOT NULL
  )`,
  // The FTS5 index the sparse list was until the in-memory BM25 index (its triggers first: they name it).
  `DROP TRIGGER IF EXISTS chunks_fts_insert`,
  `DROP TRIGGER IF EXISTS chunks_fts_delete`,
  `DROP TABLE IF EXISTS chunks_fts`,
] as const;
