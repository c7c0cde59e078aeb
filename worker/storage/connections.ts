import type { S3Location } from "../../contracts/s3-client";
import { StepFailure } from "../../contracts/step-failure";
import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { storageConnections } from "../db/schema";
import { notFound, validationError } from "../errors";
import { SEAL_PURPOSES, unseal } from "../platform/crypto";
import { shortCache } from "../platform/short-cache";

type ConnectionRow = typeof storageConnections.$inferSelect;

/** A connection's secret key is sealed for its own row. */
export const connectionSecretSeal = (connectionId: string) => ({ purpose: SEAL_PURPOSES.connectionSecret, rowId: connectionId });

/** The job failure code (contracts/services/types.ts SAFETY_FINAL_CODES) of a job whose connection was deactivated. */
export const STORAGE_CONNECTION_INACTIVE = "storage_connection_inactive";

/** A job's step needs a connection that was deactivated since create: the job fails for good. */
export class StorageConnectionInactive extends StepFailure {
  constructor(connectionId: string) {
    super(STORAGE_CONNECTION_INACTIVE, `storage connection ${connectionId} was deactivated; its credentials are no longer used`, false);
  }
}

/**
 * Where a connection's store is and the credentials to reach it. Only an active connection gives
 * them: a deactivated one answers 422 `connectionInactive` to whatever asked (a request, the console's
 * media streaming), and job steps check first (`projectStorageGrant`) to fail with the job code.
 */
export async function connectionLocation(conn: ConnectionRow, encryptionKey: string): Promise<S3Location> {
  if (conn.status !== "active")
    throw validationError(`storage connection ${conn.id} is not active`, [{ path: "connectionId", issue: "connectionInactive" }]);
  return {
    endpoint: conn.endpoint,
    region: conn.region,
    forcePathStyle: conn.forcePathStyle,
    accessKeyId: conn.accessKeyId,
    secretAccessKey: await unseal(encryptionKey, conn.secretAccessKeyEnc, connectionSecretSeal(conn.id)),
  };
}

/** The public view: the secret never leaves the service. */
export function publicConnection(conn: ConnectionRow) {
  return {
    connectionId: conn.id,
    projectId: conn.projectId,
    name: conn.name,
    endpoint: conn.endpoint,
    region: conn.region,
    forcePathStyle: conn.forcePathStyle,
    buckets: conn.buckets,
    accessKeyId: conn.accessKeyId,
    defaultOutputPrefix: conn.defaultOutputPrefix,
    status: conn.status,
    /** Upload triggers (issue 26), and where the store sends its event notifications for them. */
    triggers: conn.triggers ?? [],
    eventsPath: `/v1/storage-connections/${conn.id}/events`,
    createdAt: conn.createdAt,
    updatedAt: conn.updatedAt,
  };
}

/**
 * Active connections this isolate read lately, by project and id (platform/short-cache.ts): a create
 * naming a connection then waits no D1 round trip for it. A deactivation here forgets them at once;
 * in another isolate a create may still pass this check within the TTL, and its job then fails at its
 * first lease with `storage_connection_inactive` (lease-grants.ts reads the row again), so the
 * credentials of a deactivated connection reach no runner. Inactive rows and misses are not kept.
 */
const usable = shortCache<ConnectionRow>(1_000);

export function forgetConnections(): void {
  usable.clear();
}

/** The connection exists in the project, is active, and allows the bucket; `at` prefixes the error paths. */
export async function requireUsableConnection(db: Db, projectId: string, connectionId: string, bucket: string, at = "input") {
  const cacheKey = `${projectId}/${connectionId}`;
  const conn =
    usable.get(cacheKey) ??
    (await db
      .select()
      .from(storageConnections)
      .where(and(eq(storageConnections.id, connectionId), eq(storageConnections.projectId, projectId)))
      .get());
  if (!conn)
    throw notFound(`storage connection not found: ${connectionId}`, [{ path: `${at}.connectionId`, issue: `notFound:${connectionId}` }]);
  if (conn.status !== "active")
    throw validationError(`storage connection ${conn.id} is not active`, [{ path: `${at}.connectionId`, issue: "connectionInactive" }]);
  if (!conn.buckets.includes(bucket)) {
    throw validationError(`bucket ${bucket} is not in the connection's buckets (${conn.buckets.join(", ")})`, [
      { path: `${at}.bucket`, issue: "bucketNotAllowed" },
    ]);
  }
  usable.set(cacheKey, conn);
  return conn;
}
