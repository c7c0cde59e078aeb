import type { Job } from "../../contracts/job";
import { ApiError, conflict } from "../errors";
import { sha256Hex } from "../platform/crypto";

/** `Idempotency-Key` on POST /v1/jobs: kept 24 h, scoped to the project. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long a key stays `in_flight` before another request may take it over: a request that died
 * mid-create (an isolate lost, a deploy) must not block its key for the whole TTL. A slow first
 * request that is still running when its key is taken over finds out before it creates anything
 * (`claim` refuses it), so a takeover never makes a second job.
 */
export const IDEMPOTENCY_IN_FLIGHT_MS = 60 * 1000;

/** What a fresh request does with its key: record the job it is about to make, then the answer. */
export interface IdempotentCreate {
  /** Records the job id before the job is made; throws 409 when another request has taken the key over since. */
  claim(jobId: string): Promise<void>;
  /**
   * The claim as one write of the create's batch (worker/jobs/create.ts): it answers the key's row
   * when it went through, none when the key was taken over (then `takenOver()` is the 409).
   */
  claimStatement(jobId: string): D1PreparedStatement;
  /** Forgets the claimed job id: the create found that the job was not made after all. */
  release(): Promise<void>;
  finish(status: number, body: unknown): Promise<void>;
  /** Frees the key for a retry, unless it names a job that may exist (a retry then finds it). */
  abandon(): Promise<void>;
}

export type IdempotencyBegin =
  | ({ kind: "fresh" } & IdempotentCreate)
  | { kind: "replay"; status: number; body: string }
  /** An earlier request with this key made `job` but never recorded its answer: the answer is the job. */
  | { kind: "recovered"; job: Job; finish: IdempotentCreate["finish"] };

interface KeyRow {
  request_hash: string;
  state: string;
  job_id: string | null;
  response_status: number | null;
  response_body: string | null;
  created_at: string;
}

/** An `Idempotency-Key` is 1-255 printable ASCII characters (422 `invalidFormat` otherwise). */
export function checkIdempotencyKey(key: string): void {
  if (key.length < 1 || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new ApiError("validationError", "Idempotency-Key must be 1-255 printable ASCII characters", [
      { path: "headers.Idempotency-Key", issue: "invalidFormat" },
    ]);
  }
}

/**
 * Starts an idempotent create. `findJob` reads a job of the project by id (null when it does not
 * exist): an in-flight key that names a job is answered with that job once it exists, whatever
 * happened to the request that made it.
 */
export async function beginIdempotent(
  db: D1Database,
  projectId: string,
  key: string,
  rawBody: string,
  findJob: (jobId: string) => Promise<Job | null>,
  now = new Date(),
): Promise<IdempotencyBegin> {
  checkIdempotencyKey(key);
  const hash = await sha256Hex(rawBody);
  const startedAt = now.toISOString();
  // One batch (one round trip, one transaction): an expired key is forgotten, so the insert after it can take the key again.
  const [, inserted] = await db.batch<{ key: string }>([
    db.prepare("DELETE FROM idempotency_keys WHERE project_id = ? AND key = ? AND expires_at <= ?").bind(projectId, key, startedAt),
    db
      .prepare(
        "INSERT INTO idempotency_keys (project_id, key, request_hash, state, created_at, expires_at) VALUES (?, ?, ?, 'in_flight', ?, ?) ON CONFLICT DO NOTHING RETURNING key",
      )
      .bind(projectId, key, hash, startedAt, new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString()),
  ]);
  if (inserted && inserted.results.length > 0) return { kind: "fresh", ...ownedBy(db, projectId, key, startedAt) };

  const row = await db
    .prepare(
      "SELECT request_hash, state, job_id, response_status, response_body, created_at FROM idempotency_keys WHERE project_id = ? AND key = ?",
    )
    .bind(projectId, key)
    .first<KeyRow>();
  if (!row) throw conflict("Idempotency-Key is being reset; retry the request");
  if (row.request_hash !== hash) {
    throw new ApiError("idempotencyKeyReused", "this Idempotency-Key was already used with a different request body", [
      { path: "headers.Idempotency-Key", issue: "bodyMismatch" },
    ]);
  }
  if (row.state !== "in_flight") return { kind: "replay", status: row.response_status ?? 200, body: row.response_body ?? "null" };

  const job = row.job_id ? await findJob(row.job_id) : null;
  if (job) return { kind: "recovered", job, finish: ownedBy(db, projectId, key, row.created_at).finish };
  if (now.getTime() - Date.parse(row.created_at) < IDEMPOTENCY_IN_FLIGHT_MS)
    throw conflict("a request with this Idempotency-Key is still in progress; retry after it finishes");
  // The request holding the key stopped without an answer and made no job: this one takes the key over.
  const takenOver = await db
    .prepare(
      "UPDATE idempotency_keys SET created_at = ?, job_id = NULL WHERE project_id = ? AND key = ? AND state = 'in_flight' AND created_at = ? RETURNING key",
    )
    .bind(startedAt, projectId, key, row.created_at)
    .first();
  if (!takenOver) throw conflict("a request with this Idempotency-Key is still in progress; retry after it finishes");
  return { kind: "fresh", ...ownedBy(db, projectId, key, startedAt) };
}

/** The key's writes for the request that holds it (its `created_at`): a request whose key was taken over changes nothing. */
function ownedBy(db: D1Database, projectId: string, key: string, startedAt: string): IdempotentCreate {
  const mine = "project_id = ? AND key = ? AND state = 'in_flight' AND created_at = ?";
  const claimStatement = (jobId: string) =>
    db
      .prepare(`UPDATE idempotency_keys SET job_id = ? WHERE ${mine} AND job_id IS NULL RETURNING key`)
      .bind(jobId, projectId, key, startedAt);
  return {
    claim: async (jobId) => {
      if (!(await claimStatement(jobId).first())) throw takenOver();
    },
    claimStatement,
    release: async () => {
      await db.prepare(`UPDATE idempotency_keys SET job_id = NULL WHERE ${mine}`).bind(projectId, key, startedAt).run();
    },
    finish: async (status, body) => {
      await db
        .prepare(`UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ? WHERE ${mine}`)
        .bind(status, JSON.stringify(body), projectId, key, startedAt)
        .run();
    },
    abandon: async () => {
      await db.prepare(`DELETE FROM idempotency_keys WHERE ${mine} AND job_id IS NULL`).bind(projectId, key, startedAt).run();
    },
  };
}

/** A claim refused: a later request took the key over, and its answer is the one that counts. */
export function takenOver(): ApiError {
  return conflict("this Idempotency-Key was taken over by a later request; its answer is the one that counts");
}
