import { AwsV4Signer } from "aws4fetch";

/**
 * Presigned URLs as a customer makes them: SigV4 query signing (aws4fetch's `signQuery`) with an
 * S3 server's credentials, path-style (`{endpoint}/{bucket}/{key}`). `signedAt` backdates the
 * signature (an expired URL); `expiresSec` is `X-Amz-Expires`.
 */
export interface Signing {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface PresignOptions {
  expiresSec?: number;
  signedAt?: Date;
}

const amzDate = (d: Date): string =>
  d
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

export async function presign(s3: Signing, method: "GET" | "PUT", bucket: string, key: string, opts: PresignOptions = {}): Promise<string> {
  const url = new URL(`${s3.endpoint.replace(/\/$/, "")}/${bucket}/${key.split("/").map(encodeURIComponent).join("/")}`);
  url.searchParams.set("X-Amz-Expires", String(opts.expiresSec ?? 6 * 60 * 60));
  const signer = new AwsV4Signer({
    method,
    url: url.toString(),
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    region: s3.region,
    service: "s3",
    signQuery: true,
    ...(opts.signedAt ? { datetime: amzDate(opts.signedAt) } : {}),
  });
  return (await signer.sign()).url.toString();
}

export const TRANSCRIPT_OUTPUT_NAMES = ["fullText", "segments", "srt", "vtt"] as const;

/** A transcription's `outputUrls`: one PUT URL per file, under `prefix`. */
export async function transcriptOutputUrls(s3: Signing, bucket: string, prefix: string, opts: PresignOptions = {}) {
  const files = { fullText: "transcript.txt", segments: "segments.json", srt: "transcript.srt", vtt: "transcript.vtt" };
  const entries = await Promise.all(
    TRANSCRIPT_OUTPUT_NAMES.map(async (n) => [n, await presign(s3, "PUT", bucket, `${prefix}${files[n]}`, opts)] as const),
  );
  return Object.fromEntries(entries) as Record<(typeof TRANSCRIPT_OUTPUT_NAMES)[number], string>;
}
