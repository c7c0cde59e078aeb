import type { Settings } from "../../contracts/settings";

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Why an outbound URL (a webhook receiver) may not be called, or null when it may: https always;
 * plain http only to loopback, on a local stack, when the settings allow it.
 */
export function webhookUrlRefusal(url: string, settings: Settings, environment: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "webhook URL is not a valid URL";
  }
  if (u.protocol === "https:") return null;
  if (u.protocol === "http:" && environment === "local" && settings.webhooks.allowLoopbackHttp && isLoopbackHost(u.hostname)) return null;
  return "webhookUrl must start with https:// (plain http only to loopback on a local stack that allows it)";
}
