import { S3Client, S3RedirectError } from "../../../contracts/s3-client";
import type { Env } from "../../env";
import { validationError } from "../../errors";
import type { storageConnections } from "../../db/schema";
import { connectionLocation } from "../../storage/connections";

/**
 * The spec's create-time output check: an empty PUT at every key a job will write, together (they
 * are independent, and the slowest part of a create otherwise). The first refusal is the 422.
 */
export async function probeOutputKeys(
  env: Env,
  conn: typeof storageConnections.$inferSelect,
  bucket: string,
  keys: readonly string[],
  path: string,
) {
  const s3 = new S3Client(await connectionLocation(conn, env.ENCRYPTION_KEY), 10_000);
  await putProbes(s3, bucket, keys, path);
}

export async function putProbes(s3: S3Client, bucket: string, keys: readonly string[], path: string): Promise<void> {
  const probes = await Promise.allSettled(keys.map((key) => s3.putObject(bucket, key, new Uint8Array(0), "application/octet-stream", 0)));
  const refused = probes.findIndex((p) => p.status === "rejected");
  if (refused >= 0) {
    const err = (probes[refused] as PromiseRejectedResult).reason as unknown;
    throw validationError(
      `output key is not writable: s3://${bucket}/${keys[refused]} (${err instanceof Error ? err.message : String(err)})`,
      // A redirect is never followed (a 307 would send the body on): named, so the customer knows why.
      [{ path, issue: err instanceof S3RedirectError ? "redirectRefused" : "outputNotWritable" }],
    );
  }
}
