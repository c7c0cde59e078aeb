import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, call, expectError, mintRunnerToken, runnerCall } from "./helpers/api";
import { cancelUnfinished, fakeRunnerWith, submitTranscription, waitFor } from "./helpers/jobs";
import { runnerTaskStates, useMachineryTenant } from "./helpers/machinery";
import { createTenant } from "./helpers/tenant";

/**
 * Runner identity: every gpu-runner has a token of its own, minted by the operator
 * (`/admin/v1/runner-tokens`), stored hashed, revocable at once and optionally scoped to lanes or
 * workspaces. A task leased with one token is reported on with that token only.
 */

const t = useMachineryTenant({ steps: [{ stages: ["work"] }] });

interface ListedToken {
  runnerTokenId: string;
  name: string;
  prefix: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const lease = (token: string, extra: Record<string, unknown> = {}) =>
  runnerCall<{ task: { taskId: string; jobId: string } | null }>("/lease", { runnerId: "r", handlers: ["test.work"], ...extra }, token);
const revoke = (id: string) => admin<ListedToken>("POST", `/runner-tokens/${id}/revoke`);
const listed = async (id: string) => (await admin<ListedToken[]>("GET", "/runner-tokens")).body.data.find((x) => x.runnerTokenId === id);

describe("minting runner tokens (operator routes)", () => {
  it("a new token's secret is answered once, with Cache-Control: no-store", async () => {
    const res = await admin<{ runnerTokenId: string; secret: string; prefix: string }>("POST", "/runner-tokens", { name: "gpu-1" });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body.data.runnerTokenId).toMatch(/^rnt_/);
    expect(res.body.data.secret).toMatch(/^mjr_[0-9a-z]{40}$/);
    expect(res.body.data.secret.startsWith(res.body.data.prefix)).toBe(true);
  });

  it("the list shows tokens without their secrets or hashes", async () => {
    const minted = await mintRunnerToken({ name: "gpu-listed" });
    const row = await listed(minted.runnerTokenId);
    expect(row).toMatchObject({ name: "gpu-listed", revokedAt: null });
    const text = JSON.stringify((await admin("GET", "/runner-tokens")).body);
    expect(text).not.toContain(minted.secret);
    expect(text).not.toMatch(/secretHash|secret_hash|"secret"/);
  });

  it("stores only the secret's SHA-256", async () => {
    const minted = await mintRunnerToken();
    const row = await env.DB.prepare("SELECT * FROM runner_tokens WHERE id = ?")
      .bind(minted.runnerTokenId)
      .first<Record<string, unknown>>();
    expect(Object.values(row ?? {})).not.toContain(minted.secret);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(minted.secret));
    expect(row?.["secret_hash"]).toBe([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""));
  });

  it("a workspace scope naming an unknown workspace is 404", async () => {
    const res = await admin("POST", "/runner-tokens", { name: "gpu-x", workspaces: ["wsp_nosuchworkspace"] });
    expectError(res, 404, "notFound");
    expect(res.body.error?.details).toEqual([{ path: "workspaces.0", issue: "notFound:wsp_nosuchworkspace" }]);
  });

  it("an unknown lane in the scope is 422", async () => {
    expectError(await admin("POST", "/runner-tokens", { name: "gpu-x", lanes: ["urgent"] }), 422, "validationError");
  });

  it("revoking an unknown token is 404, and revoking twice keeps the first time", async () => {
    expectError(await revoke("rnt_nosuchtoken"), 404, "notFound");
    const minted = await mintRunnerToken();
    const first = await revoke(minted.runnerTokenId);
    const second = await revoke(minted.runnerTokenId);
    expect(first.body.data.revokedAt).not.toBeNull();
    expect(second.body.data.revokedAt).toBe(first.body.data.revokedAt);
  });

  it("a call records when the token was last used", async () => {
    const minted = await mintRunnerToken();
    expect((await listed(minted.runnerTokenId))?.lastUsedAt).toBeNull();
    expect((await lease(minted.secret)).status).toBe(200);
    expect((await listed(minted.runnerTokenId))?.lastUsedAt).not.toBeNull();
  });
});

describe("authenticating /runner/v1", () => {
  it.each([
    { what: "no Authorization header", key: undefined },
    { what: "a made-up token of the right shape", key: `mjr_${"0".repeat(40)}` },
    { what: "the operator's ADMIN_SECRET", key: env.ADMIN_SECRET },
  ])("refuses $what (401)", async ({ key }) => {
    const res = await call("POST", "/runner/v1/lease", { ...(key ? { key } : {}), body: { runnerId: "r", handlers: ["test.work"] } });
    expectError(res, 401, "unauthorized");
  });

  it("a revoked token is refused on its very next call", async () => {
    const minted = await mintRunnerToken();
    expect((await lease(minted.secret)).status).toBe(200);
    await revoke(minted.runnerTokenId);
    expectError(await lease(minted.secret), 401, "unauthorized");
  });

  it("a revoked token can no longer heartbeat or complete a task it had already leased", async () => {
    const minted = await mintRunnerToken();
    const runner = fakeRunnerWith(minted.secret);
    const job = await submitTranscription(t);
    const task = await runner.leaseWhenReady(job.jobId);
    expect((await runner.heartbeat(task)).status).toBe(200);
    await revoke(minted.runnerTokenId);
    expectError(await runner.heartbeat(task), 401, "unauthorized");
    expectError(await runner.complete(task), 401, "unauthorized");
  });
});

describe("a lease belongs to the token that took it", () => {
  it("another runner token cannot heartbeat, report or complete the task: 409 leaseLost", async () => {
    const holder = fakeRunnerWith((await mintRunnerToken({ name: "holder" })).secret);
    const other = fakeRunnerWith((await mintRunnerToken({ name: "other" })).secret);
    const job = await submitTranscription(t);
    const task = await holder.leaseWhenReady(job.jobId);
    expectError(await other.heartbeat(task), 409, "leaseLost");
    expectError(await other.events(task, [{ stage: "work", event: "started" }]), 409, "leaseLost");
    expectError(await other.complete(task), 409, "leaseLost");
    expectError(await other.fail(task), 409, "leaseLost");
    expectError(await other.release(task), 409, "leaseLost");
    expect((await holder.complete(task)).status).toBe(200);
  });

  it("a repeat of an accepted complete is answered ok to its token only", async () => {
    const holder = fakeRunnerWith((await mintRunnerToken({ name: "holder" })).secret);
    const other = fakeRunnerWith((await mintRunnerToken({ name: "other" })).secret);
    const job = await submitTranscription(t);
    const task = await holder.leaseWhenReady(job.jobId);
    expect((await holder.complete(task)).status).toBe(200);
    expect((await holder.complete(task)).status).toBe(200);
    expectError(await other.complete(task), 409, "leaseLost");
  });

  it("the lane row records which token holds the task", async () => {
    const minted = await mintRunnerToken();
    const job = await submitTranscription(t);
    const task = await fakeRunnerWith(minted.secret).leaseWhenReady(job.jobId);
    const row = await env.DB.prepare("SELECT runner_token_id FROM runner_tasks WHERE id = ?")
      .bind(task.taskId)
      .first<{ runner_token_id: string }>();
    expect(row?.runner_token_id).toBe(minted.runnerTokenId);
  });
});

describe("scopes", () => {
  it("a token scoped to the low lane never leases high-priority work", async () => {
    const lowOnly = (await mintRunnerToken({ lanes: ["low"] })).secret;
    const enterprise = await createTenant({ plan: "enterprise" });
    const high = await submitTranscription(enterprise);
    await waitFor("the task", async () => (await runnerTaskStates(high.jobId)).length === 1);
    expect((await lease(lowOnly)).body.data.task).toBeNull();
    expect((await runnerTaskStates(high.jobId))[0]).toBe("available");
    await cancelUnfinished(enterprise);
  });

  it("a lease asking only for lanes outside the token's scope is 403", async () => {
    const lowOnly = (await mintRunnerToken({ lanes: ["low"] })).secret;
    expectError(await lease(lowOnly, { lanes: ["high", "normal"] }), 403, "forbidden");
  });

  it("a token scoped to workspaces leases only their jobs, passing over older work of other workspaces", async () => {
    const mine = await createTenant({ plan: "pro" });
    const scoped = fakeRunnerWith((await mintRunnerToken({ workspaces: [mine.workspaceId] })).secret);
    const foreign = await submitTranscription(t);
    await waitFor("the foreign task", async () => (await runnerTaskStates(foreign.jobId)).length === 1);
    expect(await scoped.lease()).toBeNull();
    const own = await submitTranscription(mine);
    const task = await scoped.leaseWhenReady();
    expect(task.jobId).toBe(own.jobId);
    expect((await runnerTaskStates(foreign.jobId))[0]).toBe("available");
    await cancelUnfinished(mine);
  });
});
