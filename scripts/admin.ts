import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { apiCall, ApiCallError, bootstrap, type S3Details } from "./lib/api-client";
import { runDataPlaneMigration, type MigrationBatchAnswer } from "./lib/data-plane-migration";
import { runnerTokensRequest } from "./lib/runner-token-cli";
import { LOCAL_ADMIN_SECRET, LOCAL_BUCKET, ROOT } from "./lib/stack";

/**
 * Operator CLI: `npm run --silent admin -- <command> [options]`. Talks to the admin routes of a
 * local or deployed service (MEDIA_JOBS_API_URL, MEDIA_JOBS_ADMIN_SECRET), never with a customer key.
 *
 *   bootstrap [--plan free|pro|enterprise] [--name NAME]   one JSON object for a ready-to-use tenant
 *   workspace create --name NAME [--plan PLAN]
 *   workspace key --workspace-id ID --name NAME
 *   workspace plan --workspace-id ID --plan PLAN
 *   users create --workspace ID --email EMAIL [--role admin|member] [--name NAME] [--password-stdin]
 *       a console user; the password is read from stdin, or generated and printed once
 *   runner-tokens create --name NAME [--lanes high,normal] [--workspaces wsp_…,wsp_…]
 *       a gpu-runner's own token; the secret is printed once (give it to the runner as RUNNER_TOKEN)
 *   runner-tokens list | runner-tokens revoke rnt_…
 *   settings get | settings set '<json patch>'
 *   migrate-data-plane [--limit N]
 *       after upgrading from a version that kept bulk data and the catalog in D1: moves it into the
 *       current layout in batches until none remains (docs/deploy.md, "Moving existing data")
 */
const USAGE = `usage: npm run --silent admin -- <bootstrap|workspace create|workspace key|workspace plan|users create|runner-tokens create|runner-tokens list|runner-tokens revoke|settings get|settings set|migrate-data-plane> [options]`;

/** The first line of stdin: a password given this way stays out of the shell history and the process list. */
async function readStdinLine(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  return text.split(/\r?\n/)[0] ?? "";
}

/** 24 characters from a 56-symbol alphabet without look-alikes (~139 bits). */
function generatePassword(): string {
  const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return [...bytes].map((b) => alphabet[b % alphabet.length]).join("");
}

async function localStack(): Promise<{ apiBaseUrl?: string; bucket?: string; s3?: S3Details }> {
  try {
    return JSON.parse(await readFile(path.join(ROOT, ".local/state/stack.json"), "utf8")) as {
      apiBaseUrl?: string;
      bucket?: string;
      s3?: S3Details;
    };
  } catch {
    return {};
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      plan: { type: "string", default: "free" },
      name: { type: "string" },
      "workspace-id": { type: "string" },
      workspace: { type: "string" },
      email: { type: "string" },
      role: { type: "string", default: "member" },
      "password-stdin": { type: "boolean", default: false },
      "api-url": { type: "string" },
      bucket: { type: "string" },
      lanes: { type: "string" },
      workspaces: { type: "string" },
      limit: { type: "string" },
    },
  });
  const stack = await localStack();
  const apiBaseUrl = values["api-url"] ?? process.env["MEDIA_JOBS_API_URL"] ?? stack.apiBaseUrl ?? "http://127.0.0.1:8787";
  // The local stack's well-known secret is a fallback for loopback only; a deployed service needs the real one.
  const loopback = /^http:\/\/(127\.\d+\.\d+\.\d+|localhost)(:\d+)?(\/|$)/.test(apiBaseUrl);
  const adminSecret = process.env["MEDIA_JOBS_ADMIN_SECRET"] ?? (loopback ? LOCAL_ADMIN_SECRET : undefined);
  if (!adminSecret) throw new Error(`MEDIA_JOBS_ADMIN_SECRET is required for ${apiBaseUrl}`);
  const plan = values.plan as "free" | "pro" | "enterprise";
  if (!["free", "pro", "enterprise"].includes(plan)) throw new Error(`--plan must be free, pro or enterprise`);
  const [cmd, sub] = positionals;
  const print = (v: unknown) => process.stdout.write(JSON.stringify(v, null, 2) + "\n");

  if (cmd === "bootstrap") {
    const s3: S3Details | undefined = process.env["MEDIA_JOBS_S3_ENDPOINT"]
      ? {
          endpoint: process.env["MEDIA_JOBS_S3_ENDPOINT"],
          region: process.env["MEDIA_JOBS_S3_REGION"] ?? "us-east-1",
          accessKeyId: process.env["MEDIA_JOBS_S3_ACCESS_KEY_ID"] ?? "",
          secretAccessKey: process.env["MEDIA_JOBS_S3_SECRET_ACCESS_KEY"] ?? "",
        }
      : stack.s3;
    if (!s3)
      throw new Error(
        "no local stack found (.local/state/stack.json): start it with `npm run dev`, or set MEDIA_JOBS_S3_ENDPOINT and credentials",
      );
    print(
      await bootstrap({
        apiBaseUrl,
        adminSecret,
        name: values.name ?? "local",
        plan,
        bucket: values.bucket ?? stack.bucket ?? LOCAL_BUCKET,
        s3,
      }),
    );
  } else if (cmd === "workspace" && sub === "create") {
    if (!values.name) throw new Error("--name is required");
    print((await apiCall(apiBaseUrl, "POST", "/admin/v1/workspaces", adminSecret, { name: values.name, plan })).data);
  } else if (cmd === "workspace" && sub === "key") {
    if (!values["workspace-id"] || !values.name) throw new Error("--workspace-id and --name are required");
    print(
      (await apiCall(apiBaseUrl, "POST", `/admin/v1/workspaces/${values["workspace-id"]}/keys`, adminSecret, { name: values.name })).data,
    );
  } else if (cmd === "workspace" && sub === "plan") {
    if (!values["workspace-id"]) throw new Error("--workspace-id is required");
    print((await apiCall(apiBaseUrl, "PATCH", `/admin/v1/workspaces/${values["workspace-id"]}`, adminSecret, { plan })).data);
  } else if (cmd === "users" && sub === "create") {
    const workspaceId = values.workspace ?? values["workspace-id"];
    if (!workspaceId || !values.email) throw new Error("--workspace and --email are required");
    if (values.role !== "admin" && values.role !== "member") throw new Error("--role must be admin or member");
    const generated = !values["password-stdin"];
    const password = generated ? generatePassword() : await readStdinLine();
    const user = (
      await apiCall(apiBaseUrl, "POST", `/admin/v1/workspaces/${workspaceId}/users`, adminSecret, {
        email: values.email,
        role: values.role,
        password,
        ...(values.name ? { name: values.name } : {}),
      })
    ).data;
    print(generated ? { user, password, note: "the generated password is shown once" } : { user });
  } else if (cmd === "runner-tokens") {
    const req = runnerTokensRequest(sub, positionals.slice(2), values);
    const res = await apiCall(apiBaseUrl, req.method, req.path, adminSecret, req.body);
    print(
      sub === "create" ? { ...(res.data as object), note: "the secret is shown once: give it to the runner as RUNNER_TOKEN" } : res.data,
    );
  } else if (cmd === "settings" && sub === "get") {
    print((await apiCall(apiBaseUrl, "GET", "/admin/v1/settings", adminSecret)).data);
  } else if (cmd === "settings" && sub === "set") {
    const patch = positionals[2];
    if (!patch) throw new Error("settings set needs a JSON patch argument");
    print((await apiCall(apiBaseUrl, "PATCH", "/admin/v1/settings", adminSecret, JSON.parse(patch))).data);
  } else if (cmd === "migrate-data-plane") {
    const body = values.limit ? { limit: Number(values.limit) } : {};
    const totals = await runDataPlaneMigration(
      async () =>
        (await apiCall<MigrationBatchAnswer>(apiBaseUrl, "POST", "/admin/v1/maintenance/data-plane-migration", adminSecret, body)).data,
      (answer, n) => process.stderr.write(`batch ${n}: ${JSON.stringify(answer.phases)}\n`),
    );
    print({ done: true, ...totals });
  } else {
    throw new Error(USAGE);
  }
}

main().catch((err: unknown) => {
  if (err instanceof ApiCallError) process.stderr.write(`admin: ${err.message}\n`);
  else if (err instanceof Error && "code" in err && err.code === "ECONNREFUSED")
    process.stderr.write("admin: the API is not reachable; start the local stack with `npm run dev`\n");
  else process.stderr.write(`admin: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
