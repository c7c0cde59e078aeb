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

export async function apiCall<T>(
  baseUrl: string,
  method: string,
  path: string,
  key?: string,
  body?: unknown,
  headers: Record<string, string> = {},
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
}): Promise<BootstrapResult> {
  const { apiBaseUrl: base, adminSecret } = opts;
  const ws = await apiCall<{ workspaceId: string; plan: string }>(base, "POST", "/admin/v1/workspaces", adminSecret, {
    name: opts.name,
    plan: opts.plan,
  });
  if (ws.data.plan !== opts.plan)
    await apiCall(base, "PATCH", `/admin/v1/workspaces/${ws.data.workspaceId}`, adminSecret, { plan: opts.plan });
  if (opts.settings) await apiCall(base, "PATCH", "/admin/v1/settings", adminSecret, opts.settings);
  const wkey = await apiCall<{ secret: string }>(base, "POST", `/admin/v1/workspaces/${ws.data.workspaceId}/keys`, adminSecret, {
    name: `bootstrap ${new Date().toISOString()}`,
  });
  const projects = await apiCall<Array<{ projectId: string; name: string }>>(base, "GET", "/v1/projects", wkey.data.secret);
  const projectName = `${opts.name}-project`;
  const project =
    projects.data.find((p) => p.name === projectName) ??
    (await apiCall<{ projectId: string }>(base, "POST", "/v1/projects", wkey.data.secret, { name: projectName })).data;
  const pkey = await apiCall<{ secret: string }>(base, "POST", `/v1/projects/${project.projectId}/api-keys`, wkey.data.secret, {
    name: `bootstrap ${new Date().toISOString()}`,
  });
  const conns = await apiCall<Array<{ connectionId: string; endpoint: string; buckets: string[]; status: string }>>(
    base,
    "GET",
    "/v1/storage-connections",
    pkey.data.secret,
  );
  const existing = conns.data.find((c) => c.status === "active" && c.endpoint === opts.s3.endpoint && c.buckets.includes(opts.bucket));
  const conn =
    existing ??
    (
      await apiCall<{ connectionId: string }>(base, "POST", "/v1/storage-connections", pkey.data.secret, {
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
