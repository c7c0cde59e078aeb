import { hostRefusal } from "../../../contracts/outbound-address";
import {
  isExpiredRefusal,
  PRESIGNED_MIN_VALIDITY_SEC,
  PRESIGNED_SERVICE_TYPES,
  PRESIGNED_SOURCE_TYPE,
  presignedExpiry,
  refusalBody,
  scrubbedError,
  redactUrl,
} from "../../../contracts/presigned";
import { isRedirectStatus } from "../../../contracts/redirects";
import { objectSize } from "../../../contracts/s3-client";
import { validationError } from "../../errors";
import { storageEndpointRefusal } from "../../platform/outbound-url";
import { checkSourceSize } from "./source-probe";

/**
 * The create-time checks of an `s3_presigned` job (docs/api.md, "Presigned sources and outputs"):
 * first those that need no connection (scheme, address, stated expiry), in `resolve`; then, after
 * the quota check, a ranged GET of the source and an empty PUT at each output URL, as the spec
 * probes `s3_direct` keys. Every message names a URL only in its redacted form. No probe follows a
 * redirect (422 `redirectRefused`: the runner would not follow it either), and none reads more than
 * a few KiB of any answer, whatever the server sends.
 */

export interface PresignedUrls {
  /** Null for a service that reads no source (translation). */
  sourceUrl: string | null;
  /** By output name (the service's `resolvedOutputKeys` names). */
  outputUrls: Readonly<Record<string, string>>;
}

const PROBE_TIMEOUT_MS = 10_000;

function redirectRefused(path: string, what: string, url: string, res: Response) {
  return validationError(`${what}: ${redactUrl(url)} answered with a redirect (HTTP ${res.status}), which the service does not follow`, [
    { path, issue: "redirectRefused" },
  ]);
}

/** Each URL with the detail path it came from. */
function entries(urls: PresignedUrls): Array<[path: string, url: string]> {
  return [
    ...(urls.sourceUrl !== null ? [["input.sourceUrl", urls.sourceUrl] as [string, string]] : []),
    ...Object.entries(urls.outputUrls).map(([n, u]): [string, string] => [`input.outputUrls.${n}`, u]),
  ];
}

/**
 * A service type that takes no presigned URLs (metadata, summarization, the indexer: they read only
 * transcripts and write no files) says so, rather than failing on its schema's fields.
 */
export function refuseUnwiredPresigned(body: unknown): void {
  if (typeof body !== "object" || body === null) return;
  const { serviceType, input } = body as { serviceType?: unknown; input?: unknown };
  if (typeof serviceType !== "string" || typeof input !== "object" || input === null) return;
  if ((input as { sourceType?: unknown }).sourceType !== PRESIGNED_SOURCE_TYPE || PRESIGNED_SERVICE_TYPES.has(serviceType)) return;
  throw validationError(`s3_presigned is not supported for ${serviceType}`, [{ path: "input.sourceType", issue: "presignedNotSupported" }]);
}

/**
 * Scheme, host and expiry of every URL; no connection is made. Plain http and loopback hosts only on
 * a local stack (as for storage endpoints); the runner checks the addresses a name resolves to again
 * before it connects (gpu-runner/storage.ts).
 */
export function checkPresignedUrls(urls: PresignedUrls, environment: string, now = Date.now()): void {
  for (const [path, url] of entries(urls)) {
    const refusal = storageEndpointRefusal(url, environment);
    if (refusal?.issue === "privateAddress") {
      const why = hostRefusal(new URL(url), { allowLoopback: environment === "local" }) ?? "the host is not public";
      throw validationError(`${path} refused: ${why}`, [{ path, issue: "privateAddress" }]);
    }
    if (refusal) {
      throw validationError(`${path} must start with https:// (plain http only to a loopback store on a local stack)`, [
        { path, issue: "httpsRequired" },
      ]);
    }
    const expiry = presignedExpiry(url);
    if (!expiry) continue;
    if (expiry.getTime() <= now)
      throw validationError(`${path} expired at ${expiry.toISOString()}: ${redactUrl(url)}`, [{ path, issue: "urlExpired" }]);
    if (expiry.getTime() < now + PRESIGNED_MIN_VALIDITY_SEC * 1000) {
      throw validationError(
        `${path} expires at ${expiry.toISOString()}, too soon for the job to finish: presigned URLs must stay valid at least ${PRESIGNED_MIN_VALIDITY_SEC} s after create`,
        [{ path, issue: "urlExpiresTooSoon" }],
      );
    }
  }
}

/**
 * How many probes of one create are in flight at once: every URL is the customer's, on hosts they
 * choose, and the requests leave from the operator's addresses, so a create never fans out wider.
 */
export const PROBE_CONCURRENCY = 4;

/** Runs the tasks with at most `limit` in flight, settling each (results in the tasks' order). */
async function settleLimited(tasks: ReadonlyArray<() => Promise<void>>, limit: number): Promise<PromiseSettledResult<void>[]> {
  const results: PromiseSettledResult<void>[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < tasks.length; i = next++) {
      try {
        await (tasks[i] as () => Promise<void>)();
        results[i] = { status: "fulfilled", value: undefined };
      } catch (reason) {
        results[i] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/**
 * The ranged GET of the source and the empty PUTs of the outputs, `PROBE_CONCURRENCY` at a time; the
 * first refusal (in URL order) is the 422. The lists hold no more URLs than the job can write
 * (`requireOutputUrlCounts`), so that is all that is probed. A source larger than any runner
 * downloads (`runner.maxSourceBytes`) is refused here.
 */
export async function probePresignedUrls(urls: PresignedUrls, maxSourceBytes: number): Promise<void> {
  const tasks = [
    ...(urls.sourceUrl !== null ? [() => probeSource(urls.sourceUrl as string, maxSourceBytes)] : []),
    ...Object.entries(urls.outputUrls).map(
      ([name, url]) =>
        () =>
          probeOutput(name, url),
    ),
  ];
  for (const p of await settleLimited(tasks, PROBE_CONCURRENCY)) if (p.status === "rejected") throw p.reason;
}

async function probeSource(url: string, maxSourceBytes: number): Promise<void> {
  const path = "input.sourceUrl";
  let res: Response;
  try {
    res = await fetch(url, { headers: { range: "bytes=0-0" }, redirect: "manual", signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  } catch (err) {
    throw validationError(`source URL could not be read: ${redactUrl(url)} (${scrubbedError(err, url)})`, [
      { path, issue: "sourceUnreadable" },
    ]);
  }
  if (isRedirectStatus(res.status)) {
    await res.body?.cancel();
    throw redirectRefused(path, "source URL could not be read", url, res);
  }
  if (res.ok) {
    // A server that ignores Range would send the whole file: nothing of it is read.
    await res.body?.cancel();
    checkSourceSize(objectSize(res), maxSourceBytes, path, `source ${redactUrl(url)}`);
    return;
  }
  const body = await refusalBody(res);
  if (isExpiredRefusal(res.status, body))
    throw validationError(`source URL has expired: ${redactUrl(url)}`, [{ path, issue: "urlExpired" }]);
  if (res.status === 404) throw validationError(`source object not found: ${redactUrl(url)}`, [{ path, issue: "sourceNotFound" }]);
  throw validationError(`source URL could not be read: ${redactUrl(url)} (HTTP ${res.status})`, [{ path, issue: "sourceUnreadable" }]);
}

async function probeOutput(name: string, url: string): Promise<void> {
  const path = `input.outputUrls.${name}`;
  let res: Response;
  try {
    res = await fetch(url, { method: "PUT", body: new Uint8Array(0), redirect: "manual", signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  } catch (err) {
    throw validationError(`output URL outputUrls.${name} is not writable: ${redactUrl(url)} (${scrubbedError(err, url)})`, [
      { path, issue: "outputNotWritable" },
    ]);
  }
  if (isRedirectStatus(res.status)) {
    await res.body?.cancel();
    throw redirectRefused(path, `output URL outputUrls.${name} is not writable`, url, res);
  }
  if (res.ok) {
    await res.body?.cancel();
    return;
  }
  const body = await refusalBody(res);
  if (isExpiredRefusal(res.status, body))
    throw validationError(`output URL outputUrls.${name} has expired: ${redactUrl(url)}`, [{ path, issue: "urlExpired" }]);
  throw validationError(`output URL outputUrls.${name} is not writable: ${redactUrl(url)} (HTTP ${res.status})`, [
    { path, issue: "outputNotWritable" },
  ]);
}
