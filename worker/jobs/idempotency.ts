import { ApiError, conflict } from "../errors";
import { sha256Hex } from "../platform/crypto";

/** `Idempotency-Key` on POST /v1/jobs: kept 24 h, scoped to the project. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type IdempotencyBegin =
  | { kind: "fresh"; finish: (status: number, body: unknown) => Promise<void>; abandon: () => Promise<void> }
  | { kind: "replay"; status: number; body: string };

export async function beginIdempotent(db: D1Database, projectId: string, key: string, rawBody: string): Promise<IdempotencyBegin> {
  if (key.length < 1 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ApiError("validationError", "Idempotency-Key must be 1-255 printable ASCII characters", [
      { path: "headers.Idempotency-Key", issue: "invalidFormat" },
    ]);
  }
  const hash = await sha256Hex(rawBody);
  const now = new Date();
  // Expired keys are forgotten first, so the insert below can take the key again.
  await db
    .prepare("DELETE FROM idempotency_keys WHERE project_id = ? AND key = ? AND expires_at <= ?")
    .bind(projectId, key, now.toISOString())
    .run();
  const inserted = await db
    .prepare(
      "INSERT INTO idempotency_keys (project_id, key, request_hash, state, created_at, expires_at) VALUES (?, ?, ?, 'in_flight', ?, ?) ON CONFLICT DO NOTHING RETURNING key",
    )
    .bind(projectId, key, hash, now.toISOString(), new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString())
    .first();
  if (!inserted) {
    const row = await db
      .prepare("SELECT request_hash, state, response_status, response_body FROM idempotency_keys WHERE project_id = ? AND key = ?")
      .bind(projectId, key)
      .first<{ request_hash: string; state: string; response_status: number | null; response_body: string | null }>();
    if (!row) throw conflict("Idempotency-Key is being reset; retry the request");
    if (row.request_hash !== hash) {
      throw new ApiError("idempotencyKeyReused", "this Idempotency-Key was already used with a different request body", [
        { path: "headers.Idempotency-Key", issue: "bodyMismatch" },
      ]);
    }
    if (row.state === "in_flight") throw conflict("a request with this Idempotency-Key is still in progress; retry after it finishes");
    return { kind: "replay", status: row.response_status ?? 200, body: row.response_body ?? "null" };
  }
  return {
    kind: "fresh",
    finish: async (status, body) => {
      await db
        .prepare("UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ? WHERE project_id = ? AND key = ?")
        .bind(status, JSON.stringify(body), projectId, key)
        .run();
    },
    abandon: async () => {
      await db.prepare("DELETE FROM idempotency_keys WHERE project_id = ? AND key = ? AND state = 'in_flight'").bind(projectId, key).run();
    },
  };
}
