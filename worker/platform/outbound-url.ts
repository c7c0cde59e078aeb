import { hostRefusal } from "../../contracts/outbound-address";
import type { Settings } from "../../contracts/settings";
import type { ErrorDetail } from "../errors";

export interface Refusal {
  message: string;
  issue: string;
}

/**
 * Why the service may not POST to a webhook URL, or null when it may: https to a public host.
 * Plain http, and loopback hosts, only on a local stack whose settings allow it (`webhooks.allowLoopbackHttp`).
 */
export function webhookUrlRefusal(url: string, settings: Settings, environment: string): Refusal | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { message: "webhook URL is not a valid URL", issue: "invalidFormat" };
  }
  const localLoopback = environment === "local" && settings.webhooks.allowLoopbackHttp;
  const host = hostRefusal(u, { allowLoopback: localLoopback });
  if (u.protocol !== "https:" && !(u.protocol === "http:" && localLoopback && !host && isLoopback(u))) {
    return { message: "webhookUrl must start with https:// (plain http only to loopback on a local stack that allows it)", issue: "httpsRequired" };
  }
  return host ? { message: `webhookUrl refused: ${host}`, issue: "privateAddress" } : null;
}

/**
 * Why the service may not connect to a storage endpoint, or null when it may: https to a public host.
 * On a local stack, plain http to a loopback store is allowed (the local S3 server).
 */
export function storageEndpointRefusal(endpoint: string, environment: string): Refusal | null {
  const u = new URL(endpoint);
  const local = environment === "local";
  const host = hostRefusal(u, { allowLoopback: local });
  if (host) return { message: `endpoint refused: ${host}`, issue: "privateAddress" };
  if (u.protocol !== "https:" && !(local && isLoopback(u))) return { message: "endpoint must be https:// (plain http only to a loopback store on a local stack)", issue: "httpsRequired" };
  return null;
}

function isLoopback(u: URL): boolean {
  return hostRefusal(u, { allowLoopback: false }) !== null && hostRefusal(u, { allowLoopback: true }) === null;
}

export const refusalDetail = (path: string, r: Refusal): ErrorDetail[] => [{ path, issue: r.issue }];
