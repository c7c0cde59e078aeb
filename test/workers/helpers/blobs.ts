import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { blobStore, clearBlobCache, ownerPrefix, parseBlobKey } from "../../../worker/storage/blobs";

/** Reading the platform's object storage (BLOBS) as a test: what is stored, not what a cache remembers. */

/** The value stored under `key` in R2 (the in-isolate cache forgotten first), or null. */
export async function storedValue<T = unknown>(key: string): Promise<T | null> {
  clearBlobCache();
  return blobStore(env.BLOBS).get<T>(key);
}

/** Every key stored for one owner of one kind. */
export async function ownerKeys(projectId: string, kind: string, ownerId: string): Promise<string[]> {
  return (await env.BLOBS.list({ prefix: ownerPrefix(projectId, kind, ownerId), limit: 1000 })).objects.map((o) => o.key);
}

/** `key` is one `blobKey` made for this project, kind and owner. */
export function expectBlobKey(key: unknown, projectId: string, kind: string, ownerId: string): void {
  expect(parseBlobKey(String(key))).toMatchObject({ projectId, kind, ownerId });
}

/** A row's columns, read straight from D1 (`table` is the test's own literal). */
export async function d1Row(table: string, id: string): Promise<Record<string, unknown>> {
  const row = await env.DB.prepare(`SELECT * FROM ${table} WHERE id = ?`).bind(id).first<Record<string, unknown>>();
  if (!row) throw new Error(`no ${table} row ${id}`);
  return row;
}

/**
 * Rewrites a row as the previous version of the code left it: the value back in its D1 column
 * (`column`), no pointer (`keyColumn`), no object; `reset` sets the new columns to their migration
 * defaults.
 */
export async function asLegacyRow(
  table: string,
  id: string,
  column: string,
  keyColumn: string,
  reset: Record<string, number | string> = {},
): Promise<void> {
  const key = String((await d1Row(table, id))[keyColumn]);
  const value = await storedValue(key);
  const extra = Object.keys(reset).map((c) => `, ${c} = ?`);
  await env.DB.prepare(`UPDATE ${table} SET ${column} = ?, ${keyColumn} = NULL${extra.join("")} WHERE id = ?`)
    .bind(JSON.stringify(value), ...Object.values(reset), id)
    .run();
  await env.BLOBS.delete(key);
}
