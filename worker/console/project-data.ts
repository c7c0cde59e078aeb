import { and, eq } from "drizzle-orm";
import { S3Client, S3Error, S3KeyError, S3RedirectError } from "../../contracts/s3-client";
import type { Db } from "../db/client";
import { storageConnections } from "../db/schema";
import type { Env } from "../env";
import { connectionLocation } from "../storage/connections";
import { mediaHeaders, type MediaKind } from "./media-types";

/**
 * What the console does for a signed-in user that the project-key API has no route for: media streamed
 * from the customer's bucket, and a connection's bucket test (project API keys, which the API manages
 * with workspace keys only, go through worker/accounts/service.ts). Every function is scoped to the
 * session's project by its caller.
 */

async function projectConnection(db: Db, projectId: string, connectionId: string) {
  return db
    .select()
    .from(storageConnections)
    .where(and(eq(storageConnections.id, connectionId), eq(storageConnections.projectId, projectId)))
    .get();
}

/**
 * Response headers of the store's answer that the browser's media element needs for seeking. The
 * store's Content-Type is not among them: media-types.ts decides the type from the record's kind.
 */
const RANGE_HEADERS = ["content-length", "content-range", "accept-ranges", "etag", "last-modified"];

/** A whole video may stream through one answer; the store's own timeouts end a stalled one sooner. */
const STREAM_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * Streams an object of one of the project's connections to the browser, passing its Range on, or
 * null when the connection is not the project's or does not list the bucket. `kind` is what the
 * record says the object is; the response's type comes from it and the store's declared type. The Worker signs the
 * request in the header with the connection's credentials, as every other call of the service does,
 * so this works with any store the service supports and hands the browser no bearer URL to leak.
 */
export async function streamObject(
  env: Env,
  db: Db,
  projectId: string,
  ref: { connectionId: string; bucket: string; key: string; kind: MediaKind },
  range?: string,
) {
  const conn = await projectConnection(db, projectId, ref.connectionId);
  if (!conn || !conn.buckets.includes(ref.bucket)) return null;
  // A deactivated connection is not used on anyone's behalf any more: connectionLocation refuses it (422).
  const s3 = new S3Client(await connectionLocation(conn, env.ENCRYPTION_KEY), STREAM_TIMEOUT_MS);
  let res: Response;
  try {
    res = await s3.rangedGet(ref.bucket, ref.key, range);
  } catch (err) {
    // A key with a dot segment names no object of this bucket; a redirect is never followed.
    if (err instanceof S3KeyError) return new Response("the object is not in the bucket", { status: 404 });
    if (err instanceof S3RedirectError) return new Response("the store answered with a redirect, which is not followed", { status: 502 });
    throw err;
  }
  if (!res.ok) {
    await res.body?.cancel();
    return new Response(res.status === 404 ? "the object is not in the bucket" : `the store answered ${res.status}`, {
      status: res.status === 404 || res.status === 416 ? res.status : 502,
    });
  }
  const headers = new Headers(mediaHeaders(res.headers.get("content-type"), ref.kind, ref.key));
  for (const h of RANGE_HEADERS) {
    const v = res.headers.get(h);
    if (v) headers.set(h, v);
  }
  return new Response(res.body, { status: res.status, headers });
}

/** Checks that the stored credentials still reach every bucket; one line per bucket. */
export async function testConnection(env: Env, db: Db, projectId: string, connectionId: string) {
  const conn = await projectConnection(db, projectId, connectionId);
  if (!conn) return null;
  const s3 = new S3Client(await connectionLocation(conn, env.ENCRYPTION_KEY), 10_000);
  const results: Array<{ bucket: string; ok: boolean; message: string }> = [];
  for (const bucket of conn.buckets) {
    try {
      await s3.checkBucket(bucket);
      results.push({ bucket, ok: true, message: "reachable with the stored credentials" });
    } catch (err) {
      // As at create: an S3 answer is named, anything else reads the same, so hosts cannot be probed through this.
      const code = err instanceof S3Error && err.s3Code ? err.s3Code : null;
      results.push({ bucket, ok: false, message: code ? `the store answered ${code}` : "could not reach the bucket at the endpoint" });
    }
  }
  return { name: conn.name, results };
}
