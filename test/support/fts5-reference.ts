import { DatabaseSync } from "node:sqlite";

/**
 * SQLite FTS5 as the catalog object ran it (node:sqlite is built with FTS5): the reference the
 * in-memory tokenizer and BM25 index (durable-objects/catalog/tokenizer.ts, bm25.ts) are checked against.
 */

export const FTS5_TOKENIZER = "porter unicode61 remove_diacritics 2";

/** The terms FTS5 indexes for each text, in position order (fts5vocab 'instance'). */
export function fts5Terms(texts: readonly string[], tokenizer = FTS5_TOKENIZER): string[][] {
  const db = new DatabaseSync(":memory:");
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize='${tokenizer}'); CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')`);
  const insert = db.prepare("INSERT INTO t (rowid, x) VALUES (?, ?)");
  db.exec("BEGIN");
  texts.forEach((text, i) => insert.run(i + 1, text));
  db.exec("COMMIT");
  const out: string[][] = texts.map(() => []);
  for (const r of db.prepare("SELECT doc, term FROM v ORDER BY doc, offset").all() as Array<{ doc: number; term: string }>)
    out[r.doc - 1]!.push(r.term);
  db.close();
  return out;
}

/** The MATCH expression the catalog object made of a query's words: each quoted, OR-ed. */
export const orOf = (words: readonly string[]): string => words.map((w) => `"${w}"`).join(" OR ");

const OPEN = "\u0001";
const CLOSE = "\u0002";

/** The catalog object's former schema: chunks, and FTS5 over their text kept in step by triggers. */
export class Fts5Catalog {
  private readonly db = new DatabaseSync(":memory:");

  constructor() {
    this.db.exec(`
      CREATE TABLE chunks (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL);
      CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='chunks', content_rowid='id', tokenize='${FTS5_TOKENIZER}');
      CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text); END;
      CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text); END;
    `);
  }

  /** Inserts the texts; answers their row ids. */
  write(texts: readonly string[]): number[] {
    const insert = this.db.prepare("INSERT INTO chunks (text) VALUES (?) RETURNING id");
    return texts.map((t) => (insert.get(t) as { id: number }).id);
  }

  remove(ids: readonly number[]): void {
    this.db.prepare("DELETE FROM chunks WHERE id IN (SELECT value FROM json_each(?))").run(JSON.stringify(ids));
  }

  rows(): Array<{ id: number; text: string }> {
    return this.db.prepare("SELECT id, text FROM chunks ORDER BY id").all() as Array<{ id: number; text: string }>;
  }

  /** The first `limit` rows by bm25() (ORDER BY rank), with their ranks (negative: lower is better). */
  ranked(words: readonly string[], limit: number): Array<{ id: number; rank: number }> {
    return this.db
      .prepare("SELECT rowid AS id, rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?")
      .all(orOf(words), limit) as Array<{ id: number; rank: number }>;
  }

  /** Row ids holding the word (as the hybrid admission asked, one query per word). */
  holding(word: string): Set<number> {
    return new Set(
      (this.db.prepare("SELECT rowid AS id FROM chunks_fts WHERE chunks_fts MATCH ?").all(orOf([word])) as Array<{ id: number }>).map(
        (r) => r.id,
      ),
    );
  }

  /** highlight()'s marks of a row for the query's words, as character ranges of the text. */
  marks(words: readonly string[], id: number): Array<[number, number]> {
    const row = this.db
      // As the object asked it (node:sqlite binds a number as a REAL, which FTS5's rowid = ? does not filter by).
      .prepare(
        "SELECT highlight(chunks_fts, 0, ?, ?) AS h FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
      )
      .get(OPEN, CLOSE, orOf(words), JSON.stringify([id])) as { h: string } | undefined;
    if (!row) return [];
    const marks: Array<[number, number]> = [];
    let at = 0;
    let open = -1;
    for (const ch of row.h) {
      if (ch === OPEN) open = at;
      else if (ch === CLOSE) marks.push([open, at]);
      else at += ch.length;
    }
    return marks;
  }
}
