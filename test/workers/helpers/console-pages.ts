import { exports } from "cloudflare:workers";
import { SITE, type Browser } from "./console";

/** Fetching the console's server-rendered pages (worker/console) as a browser does: cookie, form posts with the page's Origin. */

export interface Page {
  status: number;
  location: string | null;
  html: string;
  headers: Headers;
}

export async function fetchPage(
  path: string,
  init: { cookie?: string; method?: string; form?: Record<string, string>; origin?: string | null; headers?: Record<string, string> } = {},
): Promise<Page> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.cookie) headers["cookie"] = init.cookie;
  let body: string | undefined;
  if (init.form) {
    body = new URLSearchParams(init.form).toString();
    headers["content-type"] = "application/x-www-form-urlencoded";
    if (init.origin !== null) headers["origin"] = init.origin ?? SITE;
  }
  const res = await exports.default.fetch(
    new Request(`${SITE}${path}`, {
      method: init.method ?? (init.form ? "POST" : "GET"),
      headers,
      redirect: "manual",
      ...(body ? { body } : {}),
    }),
  );
  return { status: res.status, location: res.headers.get("location"), html: await res.text(), headers: res.headers };
}

export const open = (b: Browser, path: string) => fetchPage(path, { cookie: b.cookie });
export const submitForm = (b: Browser, path: string, form: Record<string, string>, origin?: string | null) =>
  fetchPage(path, { cookie: b.cookie, form, ...(origin !== undefined ? { origin } : {}) });

/** Every `<form method="post">` of a page, with its hidden `_csrf` value (null when it has none). */
export function postForms(html: string): Array<{ action: string; csrf: string | null }> {
  return [...html.matchAll(/<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)].map((m) => ({
    action: m[1] ?? "",
    csrf: /name="_csrf" value="([^"]+)"/.exec(m[2] ?? "")?.[1] ?? null,
  }));
}
