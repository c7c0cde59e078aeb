import { afterEach, describe, expect, it } from "vitest";
import { WorkflowWaitTimeoutError } from "../../../sdk/client";
import { ok, workflowFixture, workflowSteps, type FakeApi } from "../../support/fake-media-jobs-api";
import { clientWithFake } from "./helpers";

/** `mj.workflows`: create with an Idempotency-Key, list, and a wait that sees steps move. */

let api: FakeApi;
afterEach(async () => api?.close());

const BODY = {
  steps: [
    {
      id: "transcribe",
      serviceType: "transcription" as const,
      input: { sourceType: "s3_direct", connectionId: "stc_1", bucket: "media", sourceKey: "in/talk.mp4" },
    },
    {
      id: "clips",
      serviceType: "clip_generation" as const,
      input: { textSourceId: "{{transcribe.textSourceId}}" },
      dependsOn: ["transcribe"],
    },
  ],
};

describe("workflows", () => {
  it("create posts the body with an Idempotency-Key (a fresh one unless given) and resolves to the workflow", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("POST", "/v1/workflows", ok(workflowFixture(), {}, 201));
    await expect(c.mj.workflows.create(BODY, { idempotencyKey: "wf-1" })).resolves.toMatchObject({ workflowId: "wfl_test1" });
    await c.mj.workflows.create(BODY);
    const [first, second] = api.requests;
    expect(JSON.parse(first!.body)).toEqual(BODY);
    expect(first!.headers["idempotency-key"]).toBe("wf-1");
    expect(second!.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("list sends statuses comma-separated and answers the page", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("GET", "/v1/workflows", ok([workflowFixture()], { pagination: { page: 1, limit: 5, total: 1, totalPages: 1 } }));
    const page = await c.mj.workflows.list({ statuses: ["running", "failed"] }, { limit: 5 });
    expect(page.pagination.total).toBe(1);
    expect(Object.fromEntries(api.requests[0]!.query)).toEqual({ statuses: "running,failed", limit: "5" });
  });

  it("wait reports each step's move, though the workflow record itself did not change, and returns the ended workflow", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on(
      "GET",
      "/v1/workflows/wfl_test1",
      ok(workflowFixture({ steps: workflowSteps(["queued", "job_t"], ["waiting", null]) })),
      ok(workflowFixture({ steps: workflowSteps(["processing", "job_t"], ["waiting", null]) })),
      ok(workflowFixture({ steps: workflowSteps(["processing", "job_t"], ["waiting", null]) })),
      ok(workflowFixture({ status: "completed", steps: workflowSteps(["completed", "job_t"], ["completed", "job_c"]) })),
    );
    const seen: string[] = [];
    const done = await c.mj.workflows.wait("wfl_test1", { onUpdate: (w) => seen.push(w.steps.map((s) => s.status).join("/")) });
    expect(done.status).toBe("completed");
    expect(seen).toEqual(["queued/waiting", "processing/waiting", "completed/completed"]);
  });

  it("wait gives up with WorkflowWaitTimeoutError carrying the last state seen", async () => {
    const c = await clientWithFake({ sleep: (ms) => new Promise((r) => setTimeout(r, ms)) });
    api = c.api;
    api.on("GET", "/v1/workflows/wfl_test1", ok(workflowFixture({ steps: workflowSteps(["processing", "job_t"], ["waiting", null]) })));
    const err = await c.mj.workflows.wait("wfl_test1", { intervalMs: 5, timeoutMs: 30 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowWaitTimeoutError);
    expect((err as WorkflowWaitTimeoutError).workflow.steps[0]!.status).toBe("processing");
  });
});
