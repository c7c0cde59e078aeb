import type { TestProject } from "vitest/node";
import { startLocalS3 } from "../../../scripts/lib/local-s3";

/** One real S3-compatible server on loopback for the workerd tests (runs in Node). */
export default async function setup(project: TestProject) {
  const s3 = await startLocalS3({ buckets: ["media-test", "media-other"] });
  project.provide("s3", { endpoint: s3.endpoint, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey });
  return async () => s3.close();
}
