import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, type BootstrapResult } from "../../scripts/lib/api-client";
import { ROOT } from "../../scripts/lib/stack";
import { startE2E, type E2E } from "../support/e2e-stack";

const run = promisify(execFile);
let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => e?.close());

async function admin(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), path.join(ROOT, "scripts/admin.ts"), ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      MEDIA_JOBS_API_URL: e.stack.apiBaseUrl,
      MEDIA_JOBS_S3_ENDPOINT: e.stack.s3.endpoint,
      MEDIA_JOBS_S3_ACCESS_KEY_ID: e.stack.s3.accessKeyId,
      MEDIA_JOBS_S3_SECRET_ACCESS_KEY: e.stack.s3.secretAccessKey,
    },
  });
}

describe("npm run admin -- bootstrap", () => {
  it("prints exactly one JSON object with every field a quick start needs", async () => {
    const { stdout } = await admin("bootstrap", "--plan", "enterprise", "--name", "cli-one", "--bucket", e.stack.bucket);
    const out = JSON.parse(stdout) as BootstrapResult;
    expect(Object.keys(out).sort()).toEqual([
      "apiBaseUrl",
      "bucket",
      "connectionId",
      "projectId",
      "projectKey",
      "s3",
      "workspaceId",
      "workspaceKey",
    ]);
    expect(out.workspaceKey).toMatch(/^sk_wsp_/);
    expect(out.projectKey).toMatch(/^sk_prj_/);
    expect(Object.keys(out.s3).sort()).toEqual(["accessKeyId", "endpoint", "region", "secretAccessKey"]);
    const ws = await apiCall<{ plan: string }>(out.apiBaseUrl, "GET", "/v1/workspace", out.projectKey);
    expect(ws.data.plan).toBe("enterprise");
  });

  it("reuses the workspace, project and connection by name and mints fresh keys", async () => {
    const first = JSON.parse((await admin("bootstrap", "--name", "cli-two", "--bucket", e.stack.bucket)).stdout) as BootstrapResult;
    const second = JSON.parse((await admin("bootstrap", "--name", "cli-two", "--bucket", e.stack.bucket)).stdout) as BootstrapResult;
    expect(second.workspaceId).toBe(first.workspaceId);
    expect(second.projectId).toBe(first.projectId);
    expect(second.connectionId).toBe(first.connectionId);
    expect(second.projectKey).not.toBe(first.projectKey);
  });

  it("fails with a clear message and exit code 1 when the admin secret is wrong", async () => {
    const bad = await run(
      process.execPath,
      [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), path.join(ROOT, "scripts/admin.ts"), "settings", "get"],
      {
        cwd: ROOT,
        env: { ...process.env, MEDIA_JOBS_API_URL: e.stack.apiBaseUrl, MEDIA_JOBS_ADMIN_SECRET: "wrong" },
      },
    ).then(
      () => null,
      (x: unknown) => x as { code: number; stderr: string },
    );
    expect(bad?.code).toBe(1);
    expect(bad?.stderr).toMatch(/401 unauthorized/);
  });
});
