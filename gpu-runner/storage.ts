import { addressKind } from "../contracts/outbound-address";
import type { StorageGrant } from "../contracts/runner-protocol";
import { S3Client } from "../contracts/s3-client";
import { StepFailure } from "../contracts/step-failure";
import { addressRefusal, allowedKind, guardedFetch, systemResolver, type OutboundGuard, type Resolver } from "./net/guarded-fetch";

/**
 * The customer's bucket, as a handler reaches it. The Worker refused private endpoints at create,
 * but a public name can resolve to a private address (or be changed to): every connection the
 * client makes is checked when it is made (net/guarded-fetch.ts), whichever host it goes to (the
 * endpoint, or `<bucket>.<endpoint host>` for virtual-hosted buckets), so a customer's endpoint can
 * never reach into the network the runner lives in. Before that, the host is checked once up front,
 * so a refused endpoint fails with its own words before any request. Local stacks allow loopback.
 */

export type { Resolver };

/** How the runner checks the customer's servers it connects to (the same guard for buckets, presigned URLs and engine outputs). */
export type StorageGuard = OutboundGuard;

export async function openStorage(grant: StorageGrant | null, guard: StorageGuard, timeoutMs = 30_000): Promise<S3Client> {
  if (!grant) throw new StepFailure("processing_failed", "the task carries no storage grant for the job's bucket", false);
  const s3 = new S3Client(
    {
      endpoint: grant.endpoint,
      region: grant.region,
      forcePathStyle: grant.forcePathStyle,
      accessKeyId: grant.accessKeyId,
      secretAccessKey: grant.secretAccessKey,
    },
    timeoutMs,
    guardedFetch(guard),
  );
  // The host requests go to: a virtual-hosted bucket is a host of its own.
  await assertPublicHost(bucketUrl(s3, grant), guard, "the storage endpoint");
  return s3;
}

function bucketUrl(s3: S3Client, grant: StorageGrant): string {
  try {
    return s3.objectUrl(grant.bucket);
  } catch {
    return grant.endpoint;
  }
}

/**
 * Refuses (`storage_endpoint_refused`, final) a URL whose host is, or resolves to, a non-public
 * address: the early check before a customer's storage is used (endpoints and presigned URLs); the
 * connection itself is checked again (guardedFetch). `label` names the URL in the message; only the
 * host is ever quoted, never a query string.
 */
export async function assertPublicHost(url: string, guard: StorageGuard, label: string): Promise<void> {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const literal = addressKind(host);
  const isName = literal === "public" && !host.includes(":") && !/^[\d.]+$/.test(host);
  const kinds = isName ? (await resolveOrFail(host, guard.resolve ?? systemResolver, label)).map(addressKind) : [literal];
  for (const kind of kinds) if (!allowedKind(kind, host, guard)) throw addressRefusal(u.host, kind, label);
}

async function resolveOrFail(host: string, resolve: Resolver, label: string): Promise<string[]> {
  try {
    const found = await resolve(host);
    if (found.length === 0) throw new Error("no addresses");
    return found;
  } catch {
    // Same words whatever the resolver said: the caller learns nothing about the network.
    throw new StepFailure("processing_failed", `${label} ${host} could not be resolved`, true);
  }
}
