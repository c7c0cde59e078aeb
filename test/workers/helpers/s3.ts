import { inject } from "vitest";
import { S3Client } from "../../../contracts/s3-client";

export function testS3(): S3Client {
  const s3 = inject("s3");
  return new S3Client({ ...s3, forcePathStyle: true });
}

/** Puts a small object standing in for a video: create-time probes only read its first bytes. */
export async function putSource(key: string, bucket = "media-test"): Promise<string> {
  await testS3().putObject(bucket, key, new TextEncoder().encode("not really a video, but readable"), "video/mp4");
  return key;
}
