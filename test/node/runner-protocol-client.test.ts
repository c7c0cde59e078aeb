import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LeaseLost } from "../../contracts/step-kit";
import { ProtocolClient, ProtocolError } from "../../gpu-runner/protocol-client";
import { FakeRunnerApi } from "../support/fake-runner-api";
import { testClient } from "../support/runner-harness";

const lease = (client: ProtocolClient) => client.lease({ runnerId: "r1", lanes: ["high", "normal", "low"], handlers: ["test.work"] });

describe("runner protocol client", () => {
  let api: FakeRunnerApi;
  beforeEach(async () => {
    api = await FakeRunnerApi.start();
  });
  afterEach(async () => {
    await api.close();
  });

  it("sends the runner token and parses the leased task", async () => {
    const queued = api.addTask();
    const task = await lease(testClient(api));
    expect(task).toEqual(queued);
    expect(api.calls[0]?.authorization).toBe(`Bearer ${api.token}`);
  });

  it("returns null when no task is available", async () => {
    expect(await lease(testClient(api))).toBeNull();
  });

  it("retries 5xx and 429 answers", async () => {
    api.addTask();
    api.injectStatuses("lease", [503, 429, 500]);
    expect(await lease(testClient(api, { retries: 3 }))).not.toBeNull();
    expect(api.calls.map((c) => c.status)).toEqual([503, 429, 500, 200]);
  });

  it("gives up with a ProtocolError after the last retry", async () => {
    api.injectStatuses("lease", [502, 502, 502]);
    await expect(lease(testClient(api, { retries: 2 }))).rejects.toMatchObject({ name: "ProtocolError", status: 502 });
    expect(api.calls).toHaveLength(3);
  });

  it("does not retry other 4xx answers", async () => {
    const client = new ProtocolClient({ baseUrl: api.url, token: "wrong", retryBaseMs: 1 });
    const err = await lease(client).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err).toMatchObject({ status: 401, code: "unauthorized" });
    expect(api.calls).toHaveLength(1);
  });

  it("turns 409 leaseLost into a LeaseLost", async () => {
    const task = api.addTask();
    api.loseLease(task.taskId);
    const err = await testClient(api)
      .heartbeat(task.taskId, task.leaseToken)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseLost);
    expect(api.calls).toHaveLength(1);
  });

  it("a 401 on a task's call (the runner's token was revoked) is a LeaseLost: the task's work stops at once", async () => {
    const task = api.addTask();
    const revoked = new ProtocolClient({ baseUrl: api.url, token: "revoked", retryBaseMs: 1 });
    const err = await revoked.heartbeat(task.taskId, task.leaseToken).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseLost);
    expect(api.calls).toHaveLength(1);
  });

  it("retries network errors", async () => {
    api.addTask();
    let attempts = 0;
    const flaky: typeof fetch = (input, init) => {
      attempts += 1;
      return attempts <= 2 ? Promise.reject(new TypeError("fetch failed")) : fetch(input, init);
    };
    const client = new ProtocolClient({ baseUrl: api.url, token: api.token, retries: 2, retryBaseMs: 5, fetch: flaky });
    expect(await lease(client)).not.toBeNull();
    expect(attempts).toBe(3);
  });

  it("times out a request that gets no answer", async () => {
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    const client = new ProtocolClient({ baseUrl: api.url, token: api.token, retries: 0, timeoutMs: 50, fetch: hanging });
    await expect(lease(client)).rejects.toMatchObject({ name: "ProtocolNetworkError", message: expect.stringContaining("timed out") });
  });

  it("a call's own timeoutMs overrides the client's", async () => {
    const hanging: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    const client = new ProtocolClient({ baseUrl: api.url, token: api.token, retries: 0, timeoutMs: 60_000, fetch: hanging });
    await expect(client.heartbeat("tsk_1", "lt_tsk_1", { timeoutMs: 50 })).rejects.toMatchObject({
      name: "ProtocolNetworkError",
      message: expect.stringContaining("timed out after 50 ms"),
    });
  });
});
