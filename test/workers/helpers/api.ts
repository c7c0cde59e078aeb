import { expect } from "vitest";
import { exports } from "cloudflare:workers";
import { env } from "cloudflare:workers";

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: {
    data: T;
    metadata: Record<string, unknown>;
    error?: { code: string; message: string; details: Array<{ path: string; issue: string }> };
  };
}

/** Calls the Worker's fetch handler the way a client would. */
export async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers["authorization"] = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await exports.default.fetch(
    new Request(`http://media-jobs.test${path}`, { method, headers, ...(body !== undefined ? { body } : {}) }),
  );
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

export const admin = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  call<T>(method, `/admin/v1${path}`, { key: env.ADMIN_SECRET, ...(body !== undefined ? { body } : {}) });

export interface MintedRunnerToken {
  runnerTokenId: string;
  secret: string;
  lanes: string[] | null;
  workspaces: string[] | null;
}

/** A runner token minted through the operator route, as an operator (or the local stack) mints one. */
export async function mintRunnerToken(body: { name?: string; lanes?: string[]; workspaces?: string[] } = {}): Promise<MintedRunnerToken> {
  const res = await admin<MintedRunnerToken>("POST", "/runner-tokens", { name: "test-runner", ...body });
  if (res.status !== 201) throw new Error(`runner token mint failed ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

let fileRunnerToken: Promise<string> | undefined;
/** The test file's unscoped runner token, minted on first use (storage, and so the token, is per file). */
export const runnerToken = (): Promise<string> => (fileRunnerToken ??= mintRunnerToken().then((t) => t.secret));

/** A runner protocol call, with the file's runner token unless another is given. */
export const runnerCall = async <T = Record<string, unknown>>(path: string, body: unknown, token?: string) =>
  call<T>("POST", `/runner/v1${path}`, { key: token ?? (await runnerToken()), body });

/** Asserts the error envelope `{ data: null, error: { code, message, details[] }, metadata }` with this status and code. */
export function expectError(res: ApiResponse<unknown>, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({
    data: null,
    error: { code, message: expect.any(String), details: expect.any(Array) },
    metadata: expect.any(Object),
  });
  expect(res.body.error?.message.length).toBeGreaterThan(0);
}
