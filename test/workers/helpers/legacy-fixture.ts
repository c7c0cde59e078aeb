import { env } from "cloudflare:workers";
import rows from "../../fixtures/data-plane-7b34c1b/d1.json";
import answers from "../../fixtures/data-plane-7b34c1b/answers.json";

/**
 * The data a stack running commit 7b34c1b left in D1 (bulk JSON and the catalog still in D1),
 * recorded by scripts/data-plane-fixture.ts with the API answers it gave, loaded into this test's D1
 * as the previous version wrote it: what a deployment upgraded to this version starts from.
 */

export const legacyAnswers = answers;
export const legacyRows = rows as Record<string, Row[]>;

type Row = Record<string, unknown>;

/** D1 binds bytes, not the fixture's `{hex}` spelling of a blob column. */
export function bindable(value: unknown): unknown {
  if (value !== null && typeof value === "object" && "hex" in value && typeof value.hex === "string") {
    const hex = value.hex;
    const bytes = new Uint8Array(hex.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
    return bytes.buffer;
  }
  return value;
}

/** Inserts every fixture row (migrations' own bookkeeping aside); a row already there is kept. */
export async function loadLegacyFixture(): Promise<void> {
  // The dump lists tables in no particular order: foreign keys are checked when the batch commits.
  const statements: D1PreparedStatement[] = [env.DB.prepare("PRAGMA defer_foreign_keys = on")];
  for (const [table, tableRows] of Object.entries(rows as Record<string, Row[]>)) {
    if (table === "d1_migrations") continue;
    for (const row of tableRows) {
      const columns = Object.keys(row);
      statements.push(
        env.DB.prepare(
          `INSERT OR IGNORE INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
        ).bind(...columns.map((c) => bindable(row[c]))),
      );
    }
  }
  await env.DB.batch(statements);
}
