import { and, asc, eq } from "drizzle-orm";
import { randomToken } from "../../contracts/ids";
import { S3Client } from "../../contracts/s3-client";
import type { Db } from "../db/client";
import { storageConnections } from "../db/schema";
import { validationError } from "../errors";
import { connectionLocation } from "./connections";

/**
 * Files sent to the API itself (the OpenAI-compatible transcription endpoint) are kept in the
 * project's own storage, so the job they start is an ordinary bucket job: its source stays the
 * transcript's source (the console plays it; clips and dubs are made from it), in the customer's
 * bucket, under the customer's retention. Which storage: the project's default connection, its
 * oldest active one, and that connection's first bucket (docs/api.md).
 */

export interface UploadDestination {
  connectionId: string;
  bucket: string;
  /** Where uploads go: `<defaultOutputPrefix>/uploads/`. */
  prefix: string;
  s3: S3Client;
}

/** The S3 client's timeout for an upload's PUT: 25 MiB to a slow store must not be cut off at the default. */
const UPLOAD_PUT_TIMEOUT_MS = 120_000;

export async function defaultUploadDestination(db: Db, encryptionKey: string, projectId: string, path: string): Promise<UploadDestination> {
  const conn = await db
    .select()
    .from(storageConnections)
    .where(and(eq(storageConnections.projectId, projectId), eq(storageConnections.status, "active")))
    .orderBy(asc(storageConnections.createdAt), asc(storageConnections.id))
    .limit(1)
    .get();
  const bucket = conn?.buckets[0];
  if (!conn || !bucket)
    throw validationError(
      "this project has no active storage connection; uploads are kept in the project's storage: create one with POST /v1/storage-connections",
      [{ path, issue: "noStorageConnection" }],
    );
  return {
    connectionId: conn.id,
    bucket,
    prefix: `${conn.defaultOutputPrefix.replace(/\/+$/, "")}/uploads/`,
    s3: new S3Client(await connectionLocation(conn, encryptionKey), UPLOAD_PUT_TIMEOUT_MS),
  };
}

/**
 * A file's name as a key's last segment: letters, digits, `.`, `-`, `_` kept, every other run one
 * `_`, at most 100 characters keeping the extension. The client's name is shown to people (the
 * job's source name), never trusted as a path.
 */
export function safeFileName(name: string, extension: string): string {
  const base = (name.split(/[\\/]/).pop() ?? "").replace(/\.[^.]*$/, "");
  const clean =
    base
      .replace(/[^A-Za-z0-9._-]+/g, "_")
      .replace(/^[._]+/, "")
      .slice(0, 90) || "upload";
  return `${clean}.${extension}`;
}

/** The object's type, by the extension the upload was accepted for: the client's declared type is not passed on. */
const TYPE_BY_EXTENSION: Readonly<Record<string, string>> = {
  flac: "audio/flac",
  mp3: "audio/mpeg",
  mpga: "audio/mpeg",
  mp4: "video/mp4",
  mpeg: "video/mpeg",
  m4a: "audio/mp4",
  ogg: "audio/ogg",
  wav: "audio/wav",
  webm: "video/webm",
};

/** Writes the file under a key of its own (a random folder, so two uploads of one name never meet); returns the key. */
export async function putUpload(dest: UploadDestination, file: File, extension: string): Promise<string> {
  const key = `${dest.prefix}${randomToken(20)}/${safeFileName(file.name, extension)}`;
  const type = Object.hasOwn(TYPE_BY_EXTENSION, extension) ? (TYPE_BY_EXTENSION[extension] as string) : "application/octet-stream";
  await dest.s3.putObject(dest.bucket, key, await file.arrayBuffer(), type, file.size);
  return key;
}

/** Removes an upload no job was made for. Best effort: a failure is logged, the request's own answer stands. */
export async function deleteUpload(dest: UploadDestination, key: string): Promise<void> {
  try {
    await dest.s3.deleteObject(dest.bucket, key);
  } catch (err) {
    console.error(JSON.stringify({ level: "warn", msg: "could not delete an upload no job was made for", key, error: String(err) }));
  }
}
