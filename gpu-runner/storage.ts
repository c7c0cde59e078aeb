import { lookup as dnsLookup } from "node:dns/promises";
import { addressKind } from "../contracts/outbound-address";
import type { StorageGrant } from "../contracts/runner-protocol";
import { S3Client } from "../contracts/s3-client";
import { StepFailure } from "./handler";

/**
 * The customer's bucket, as a handler reaches it. The Worker refused private endpoints at create,
 * but a public name can resolve to a private address (or be changed to): before connecting, the
 * runner resolves the endpoint's host and refuses if any address is not public, so a customer's
 * endpoint can never reach into the network the runner lives in. Local stacks allow loopback.
 */

export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface StorageGuard {
  /** Loopback endpoints allowed (a local stack's S3 server); never private or link-local ones. */
  allowLoopback: boolean;
  resolve?: Resolver;
}

export async function openStorage(grant: StorageGrant | null, guard: StorageGuard, timeoutMs = 30_000): Promise<S3Client> {
  if (!grant) throw new StepFailure("processing_failed", "the task carries no storage grant for the job's bucket", false);
  await assertPublicHost(grant.endpoint, guard, "the storage endpoint");
  return new S3Client(
    {
      endpoint: grant.endpoint,
      region: grant.region,
      forcePathStyle: grant.forcePathStyle,
      accessKeyId: grant.accessKeyId,
      secretAccessKey: grant.secretAccessKey,
    },
    timeoutMs,
  );
}

/**
 * Refuses (`storage_endpoint_refused`, final) a URL whose host is, or resolves to, a non-public
 * address; the one check before every connection to a customer's storage (endpoints and presigned
 * URLs). `label` names the URL in the message; only the host is ever quoted, never a query string.
 */
export async function assertPublicHost(url: string, guard: StorageGuard, label: string): Promise<void> {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const literal = addressKind(host);
  const isName = literal === "public" && !host.includes(":") && !/^[\d.]+$/.test(host);
  const kinds = isName ? (await resolveOrFail(host, guard.resolve ?? systemResolver, label)).map(addressKind) : [literal];
  for (const kind of kinds) {
    const allowed = kind === "public" || (guard.allowLoopback && (kind === "loopback" || host === "localhost"));
    if (!allowed) {
      throw new StepFailure(
        "storage_endpoint_refused",
        `${label} ${u.host} resolves to a non-public address (${kind}); the runner connects only to public hosts`,
        false,
      );
    }
  }
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
