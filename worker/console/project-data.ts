import { AwsClient } from "aws4fetch";
import { and, desc, eq } from "drizzle-orm";
import { S3Client, S3Error } from "../../contracts/s3-client";
import { createKey, publicKey } from "../accounts/service";
import type { Db } from "../db/client";
import { apiKeys, storageConnections } from "../db/schema";
import type { Env } from "../env";
import { connectionLocation } from "../storage/connections";

/**
 * What the console does for a signed-in user that the project-key API has no route for: project API
 * keys (the API manages them with workspace keys only) and media the browser plays straight from the
 * customer's bucket. Every function is scoped to the session's project by its caller.
 */

/** How long a media URL handed to the browser stays valid: enough to watch a long recording. */
export const MEDIA_URL_TTL_SEC = 3600;

export async function listProjectKeys(db: Db, projectId: string) {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.projectId, projectId), eq(apiKeys.kind, "project")))
    .orderBy(desc(apiKeys.createdAt))
    .all();
  return rows.map(publicKey);
}

export async function createProjectKey(db: Db, workspaceId: string, projectId: string, name: string) {
  return createKey(db, { kind: "project", workspaceId, projectId, name });
}

/** Revokes one of the project's keys; false when the id is not a project key of this project. */
export async function revokeProjectKey(db: Db, projectId: string, keyId: string): Promise<boolean> {
  const row = await db
    .update(apiKeys)
    .set({ revokedAt: new Date().toISOString() })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.projectId, projectId), eq(apiKeys.kind, "project")))
    .returning()
    .get();
  return row !== undefined;
}

async function projectConnection(db: Db, projectId: string, connectionId: string) {
  return db
    .select()
    .from(storageConnections)
    .where(and(eq(storageConnections.id, connectionId), eq(storageConnections.projectId, projectId)))
    .get();
}

/**
 * A presigned GET for an object in one of the project's connections, or null when the connection is
 * not the project's. The browser streams the media from the store itself (range requests, seeking)
 * instead of through the Worker, so a long video costs the Worker one signature, not its bytes.
 */
export async function presignedGet(env: Env, db: Db, projectId: string, connectionId: string, bucket: string, key: string) {
  const conn = await projectConnection(db, projectId, connectionId);
  if (!conn || !conn.buckets.includes(bucket)) return null;
  const loc = await connectionLocation(conn, env.ENCRYPTION_KEY);
  const url = new URL(new S3Client(loc).objectUrl(bucket, key));
  url.searchParams.set("X-Amz-Expires", String(MEDIA_URL_TTL_SEC));
  const aws = new AwsClient({ accessKeyId: loc.accessKeyId, secretAccessKey: loc.secretAccessKey, region: loc.region, service: "s3" });
  const signed = await aws.sign(url.toString(), { method: "GET", aws: { signQuery: true } });
  return signed.url;
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
