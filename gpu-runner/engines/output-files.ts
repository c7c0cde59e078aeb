import { BodyTooLargeError, readAllWithin } from "../../contracts/bounded-read";
import { addressKind } from "../../contracts/outbound-address";
import { guardedFetch } from "../net/guarded-fetch";
import { saveBody } from "../net/save-body";
import type { StepFailure } from "../../contracts/step-failure";
import { EngineHttpClient, type RetryPolicy } from "./http";

/**
 * Output files of a hosted engine (Replicate's `prediction.output` URLs), fetched from wherever the
 * prediction says. The model may be one a customer chose, so its output URL is treated as hostile:
 * https only, on the provider's delivery hosts (configured with the engine, e.g. `replicate.delivery`
 * and its subdomains), every connection address-checked (net/guarded-fetch.ts), no redirect
 * followed (`redirect_refused`), the body read with a cap, and never the API token. On a local
 * stack (`RUNNER_ALLOW_LOOPBACK_STORAGE`) a loopback host is allowed too, over http(s): the fakes.
 */

export interface OutputFileHosts {
  /** Host names files may come from: each name and its subdomains, over https. */
  hosts: readonly string[];
  /** A local stack: a loopback host (the provider's fake) is allowed, over http or https. */
  allowLoopback: boolean;
}

export const REPLICATE_DELIVERY_HOSTS: readonly string[] = ["replicate.delivery"];

export interface OutputFileFetch {
  engine: string;
  model: string;
  policy: RetryPolicy;
  files: OutputFileHosts;
  /** Builds the engine's failure (naming engine and model). */
  fail: (message: string, retryable?: boolean) => StepFailure;
}

/** How a hosted engine's client fetches its outputs: its names, retry policy and delivery hosts, its failures. */
export function outputFetchOf(
  of: { engine: string; model: string; retry: RetryPolicy; files: OutputFileHosts },
  http: Pick<EngineHttpClient, "failure">,
): OutputFileFetch {
  return { engine: of.engine, model: of.model, policy: of.retry, files: of.files, fail: (m, retryable) => http.failure(m, retryable) };
}

function onDeliveryHost(host: string, hosts: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return hosts.some((d) => {
    const domain = d.toLowerCase().replace(/^\*?\./, "");
    return h === domain || h.endsWith(`.${domain}`);
  });
}

/** `ref` as an output URL the engine may fetch; anything else fails, not retried (the same prediction says the same). */
export function outputFileUrl(ref: string, f: Pick<OutputFileFetch, "files" | "fail">): URL {
  let url: URL;
  try {
    url = new URL(ref);
  } catch {
    throw f.fail(`output is not a URL: ${ref.slice(0, 100)}`, false);
  }
  const loopback = f.files.allowLoopback && (addressKind(url.hostname) === "loopback" || url.hostname === "localhost");
  if (loopback && (url.protocol === "http:" || url.protocol === "https:")) return url;
  if (url.protocol !== "https:") throw f.fail(`output URL is not https: ${url.protocol}//${url.host}`, false);
  if (!onDeliveryHost(url.hostname, f.files.hosts))
    throw f.fail(`output URL's host ${url.host} is not one of the provider's delivery hosts (${f.files.hosts.join(", ")})`, false);
  return url;
}

function client(url: URL, f: OutputFileFetch): EngineHttpClient {
  // A client of its own: the file host is not the API, and must not see the API token.
  return new EngineHttpClient({
    engine: f.engine,
    model: f.model,
    baseUrl: url.origin,
    policy: f.policy,
    fetch: guardedFetch({ allowLoopback: f.files.allowLoopback }),
  });
}

/** The file's bytes, at most `maxBytes` (more fails, not retried). */
export function fetchOutputBytes(
  url: URL,
  f: OutputFileFetch,
  opts: { signal: AbortSignal; accept: string; maxBytes: number },
): Promise<Buffer> {
  return client(url, f).send(url.href, { signal: opts.signal, headers: { accept: opts.accept } }, async (res) => {
    try {
      return Buffer.from(await readAllWithin(res, opts.maxBytes));
    } catch (err) {
      if (err instanceof BodyTooLargeError) throw f.fail(`output file ${err.message}`, false);
      throw err;
    }
  });
}

/** The file's JSON (read within the engine client's JSON cap). */
export function fetchOutputJson(url: URL, f: OutputFileFetch, opts: { signal: AbortSignal }): Promise<unknown> {
  return client(url, f).json(url.href, { signal: opts.signal });
}

/** The file streamed to `path`, at most `maxBytes` (more fails, not retried; the partial file is deleted). */
export async function saveOutputFile(
  url: URL,
  path: string,
  f: OutputFileFetch,
  opts: { signal: AbortSignal; accept: string; maxBytes: number },
): Promise<void> {
  await client(url, f).send(url.href, { signal: opts.signal, headers: { accept: opts.accept } }, (res) =>
    saveBody(
      res,
      path,
      { maxBytes: opts.maxBytes, minFreeDiskBytes: 0, setting: "the engine's output bound", tooLarge: (m) => f.fail(m, false) },
      opts.signal,
      `output file ${url.pathname}`,
      // Cut off mid-way: a network error, which the engine client retries.
      (err) => err,
    ),
  );
}
