/**
 * A small client for the public and admin API, used by the admin CLI, the demo, the end-to-end
 * tests and the benchmarks. Errors carry the envelope's code and message.
 */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: unknown,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

export interface Envelope<T> {
  data: T;
  metadata: Record<string, unknown>;
}

/** Sees every JSON answer, success or error, before it is returned or thrown (the end-to-end tests check each against the OpenAPI document). */
export type ResponseObserver = (r: { method: string; path: string; status: number; body: unknown }) => void | Promise<void>;

export async function apiCall<T>(
  baseUrl: string,
  method: string,
  path: string,
  key?: string,
  body?: unknown,
  headers: Record<string, string> = {},
  observe?: ResponseObserver,
): Promise<Envelope<T>> {
  const res = await fetch(baseUrl + path, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    throw new ApiCallError(res.status, "invalidResponse", text.slice(0, 500), text);
  }
  await observe?.({ method, path, status: res.status, body: parsed });
  if (!res.ok) {
    const err = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiCallError(res.status, err?.code ?? "unknown", err?.message ?? text.slice(0, 500), parsed);
  }
  return parsed as Envelope<T>;
}

export interface S3Details {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

export interface BootstrapResult {
  apiBaseUrl: string;
  workspaceId: string;
  workspaceKey: string;
  projectId: string;
  projectKey: string;
  connectionId: string;
  bucket: string;
  s3: S3Details;
}

/**
 * Creates, or reuses by name, a workspace, a project and a storage connection; mints a fresh
 * workspace key and project key (secrets are shown once, so reuse cannot return old ones).
 */
export async function bootstrap(opts: {
  apiBaseUrl: string;
  adminSecret: string;
  name: string;
  plan: "free" | "pro" | "enterprise";
  bucket: string;
  s3: S3Details;
  settings?: Record<string, unknown>;
  observe?: ResponseObserver;
}): Promise<BootstrapResult> {
  const { apiBaseUrl: base, adminSecret, observe } = opts;
  // Every answer the bootstrap reads goes past `observe` too.
  const call = <T>(method: string, path: string, key?: string, body?: unknown) => apiCall<T>(base, method, path, key, body, {}, observe);
  const ws = await call<{ workspaceId: string; plan: string }>("POST", "/admin/v1/workspaces", adminSecret, {
    name: opts.name,
    plan: opts.plan,
  });
  if (ws.data.plan !== opts.plan) await call("PATCH", `/admin/v1/workspaces/${ws.data.workspaceId}`, adminSecret, { plan: opts.plan });
  if (opts.settings) await call("PATCH", "/admin/v1/settings", adminSecret, opts.settings);
  const wkey = await call<{ secret: string }>("POST", `/admin/v1/workspaces/${ws.data.workspaceId}/keys`, adminSecret, {
    name: `bootstrap ${new Date().toISOString()}`,
  });
  const projects = await call<Array<{ projectId: string; name: string }>>("GET", "/v1/projects", wkey.data.secret);
  const projectName = `${opts.name}-project`;
  const project =
    projects.data.find((p) => p.name === projectName) ??
    (await call<{ projectId: string }>("POST", "/v1/projects", wkey.data.secret, { name: projectName })).data;
  const pkey = await call<{ secret: string }>("POST", `/v1/projects/${project.projectId}/api-keys`, wkey.data.secret, {
    name: `bootstrap ${new Date().toISOString()}`,
  });
  const conns = await call<Array<{ connectionId: string; endpoint: string; buckets: string[]; status: string }>>(
    "GET",
    "/v1/storage-connections",
    pkey.data.secret,
  );
  const existing = conns.data.find((c) => c.status === "active" && c.endpoint === opts.s3.endpoint && c.buckets.includes(opts.bucket));
  const conn =
    existing ??
    (
      await call<{ connectionId: string }>("POST", "/v1/storage-connections", pkey.data.secret, {
        name: "local-s3",
        endpoint: opts.s3.endpoint,
        region: opts.s3.region,
        forcePathStyle: true,
        buckets: [opts.bucket],
        accessKeyId: opts.s3.accessKeyId,
        secretAccessKey: opts.s3.secretAccessKey,
      })
    ).data;
  return {
    apiBaseUrl: base,
    workspaceId: ws.data.workspaceId,
    workspaceKey: wkey.data.secret,
    projectId: project.projectId,
    projectKey: pkey.data.secret,
    connectionId: conn.connectionId,
    bucket: opts.bucket,
    s3: { endpoint: opts.s3.endpoint, region: opts.s3.region, accessKeyId: opts.s3.accessKeyId, secretAccessKey: opts.s3.secretAccessKey },
  };
}
