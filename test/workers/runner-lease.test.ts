import { beforeAll, describe, expect, it } from "vitest";
import type { LeasedTask } from "../../contracts/runner-protocol";
import { runnerCall } from "./helpers/api";
import { submitTranscription, useTestPipeline } from "./helpers/jobs";
import { createTenant, unique, type Tenant } from "./helpers/tenant";

/** The lease's long poll: an idle runner is answered as soon as work enters the lane. */

let t: Tenant;
beforeAll(async () => {
  t = await createTenant({ plan: "pro" });
  await useTestPipeline("transcription", [{ stages: ["work"] }]);
});

const lease = (waitSeconds: number) =>
  runnerCall<{ task: LeasedTask | null }>("/lease", { runnerId: unique("runner"), handlers: ["test.work"], waitSeconds });

describe("POST /runner/v1/lease with waitSeconds (long poll)", () => {
  it("a waiting lease is answered with the task as soon as a job's step enters the lane", async () => {
    const started = Date.now();
    const pending = lease(10);
    const job = await submitTranscription(t);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.body.data.task?.jobId).toBe(job.jobId);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a lease answer, which carries storage credentials, is marked Cache-Control: no-store", async () => {
    const pending = lease(10);
    await submitTranscription(t);
    const res = await pending;
    expect(res.body.data.task).not.toBeNull();
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("with nothing to do, the lease answers null once waitSeconds have passed", async () => {
    const started = Date.now();
    const res = await lease(1);
    expect(res.status).toBe(200);
    expect(res.body.data.task).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it("waitSeconds above 20 is refused with 422", async () => {
    const res = await lease(21);
    expect(res.status).toBe(422);
  });
});
