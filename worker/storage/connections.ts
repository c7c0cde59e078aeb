import type { S3Location } from "../../contracts/s3-client";
import type { storageConnections } from "../db/schema";
import { unseal } from "../platform/crypto";

type ConnectionRow = typeof storageConnections.$inferSelect;

export async function connectionLocation(conn: ConnectionRow, encryptionKey: string): Promise<S3Location> {
  return {
    endpoint: conn.endpoint,
    region: conn.region,
    forcePathStyle: conn.forcePathStyle,
    accessKeyId: conn.accessKeyId,
    secretAccessKey: await unseal(encryptionKey, conn.secretAccessKeyEnc),
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
    createdAt: conn.createdAt,
    updatedAt: conn.updatedAt,
  };
}
