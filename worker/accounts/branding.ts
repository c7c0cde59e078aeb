import { MAX_LOGO_BYTES, type ProjectBranding } from "../../contracts/branding";
import { S3Client } from "../../contracts/s3-client";
import type { Db } from "../db/client";
import type { Env } from "../env";
import { validationError } from "../errors";
import { requireUsableConnection } from "../storage/connections";
import { connectionLocation } from "../storage/connections";

/**
 * A brand logo is checked when it is set, not when a render needs it: the connection must be the
 * project's and allow the bucket, and the object must exist, be an image and be small.
 */
export async function checkLogo(db: Db, env: Env, projectId: string, logo: NonNullable<ProjectBranding["logo"]>): Promise<void> {
  const conn = await requireUsableConnection(db, projectId, logo.connectionId, logo.bucket, "branding.logo");
  const s3 = new S3Client(await connectionLocation(conn, env.ENCRYPTION_KEY), 10_000);
  let head: Awaited<ReturnType<S3Client["headObject"]>>;
  try {
    head = await s3.headObject(logo.bucket, logo.key);
  } catch (err) {
    throw validationError(`logo could not be read: ${err instanceof Error ? err.message : String(err)}`, [
      { path: "branding.logo.key", issue: "logoUnreadable" },
    ]);
  }
  if (!head)
    throw validationError(`logo not found: s3://${logo.bucket}/${logo.key}`, [{ path: "branding.logo.key", issue: "logoNotFound" }]);
  if (head.size > MAX_LOGO_BYTES)
    throw validationError(`logo is ${head.size} bytes; at most ${MAX_LOGO_BYTES} are accepted`, [
      { path: "branding.logo.key", issue: "logoTooLarge" },
    ]);
  if (head.contentType && !/^image\/(png|jpeg|webp)$/.test(head.contentType))
    throw validationError(`logo must be a PNG, JPEG or WebP image (the object is ${head.contentType})`, [
      { path: "branding.logo.key", issue: "logoNotAnImage" },
    ]);
}
