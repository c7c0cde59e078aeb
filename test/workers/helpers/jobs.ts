import type { Job } from "../../../contracts/job";
import type { LeasedTask, TranscriptDocument } from "../../../contracts/runner-protocol";
import type { StepSpec } from "../../../contracts/pipelines";
import { admin, call, runnerCall } from "./api";
import { putSource } from "./s3";
import { unique, type Tenant } from "./tenant";

export function transcriptionBody(t: Tenant, sourceKey: string, extra: Record<string, unknown> = {}) {
  return {
    serviceType: "transcription",
    input: { sourceType: "s3_direct", connectionId: t.connectionId, bucket: t.bucket, sourceKey },
    ...extra,
  };
}

export async function submitTranscription(t: Tenant, extra: Record<string, unknown> = {}): Promise<Job> {
  const key = await putSource(`${unique("src")}/clip.mp4`);
  const res = await call<Job>("POST", "/v1/jobs", { key: t.projectKey, body: transcriptionBody(t, key, extra) });
  if (res.status !== 201) throw new Error(`create failed ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export async function getJob(t: Tenant, jobId: string): Promise<Job> {
  const res = await call<Job>("GET", `/v1/jobs/${jobId}`, { key: t.projectKey });
  if (res.status !== 200) throw new Error(`get failed ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Replaces a service type's pipeline with test steps (honoured because ALLOW_TEST_PIPELINES=true). */
export async function useTestPipeline(serviceType: string, steps: Array<Partial<StepSpec> & { stages: string[] }>): Promise<void> {
  const full = steps.map((s, i) => ({ name: `step${i}`, executor: "runner", handler: "test.work", params: {}, ...s }));
  const res = await admin("PATCH", "/settings", { testPipelines: { [serviceType]: full } });
  if (res.status !== 200) throw new Error(`settings failed: ${JSON.stringify(res.body)}`);
}

export async function patchSettings(patch: Record<string, unknown>): Promise<void> {
  const res = await admin("PATCH", "/settings", patch);
  if (res.status !== 200) throw new Error(`settings failed: ${JSON.stringify(res.body)}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export async function waitForStatus(t: Tenant, jobId: string, status: Job["status"], timeoutMs = 10_000): Promise<Job> {
  return waitFor(
    `job ${jobId} to be ${status}`,
    async () => {
      const j = await getJob(t, jobId);
      return j.status === status ? j : null;
    },
    timeoutMs,
  );
}

/** A runner driven by the test through the real protocol routes, with this runner token (default: the file's). */
export function fakeRunnerWith(token?: string) {
  const runner = {
    async lease(handlers = ["test.work"], runnerId = unique("runner"), lanes?: string[]): Promise<LeasedTask | null> {
      const res = await runnerCall<{ task: LeasedTask | null }>("/lease", { runnerId, handlers, ...(lanes ? { lanes } : {}) }, token);
      if (res.status !== 200) throw new Error(`lease failed: ${JSON.stringify(res.body)}`);
      return res.body.data.task;
    },
    /** Polls until the dispatch queue has put a task in the lane. */
    async leaseWhenReady(jobId?: string, handlers = ["test.work"]): Promise<LeasedTask> {
      return waitFor("a runner task", async () => {
        const task = await runner.lease(handlers);
        if (task && jobId && task.jobId !== jobId) throw new Error(`leased another job's task ${task.jobId}`);
        return task;
      });
    },
    events: (task: LeasedTask, events: Array<Record<string, unknown>>) =>
      runnerCall<{ cancelRequested: boolean }>(`/tasks/${task.taskId}/events`, { leaseToken: task.leaseToken, events }, token),
    heartbeat: (task: LeasedTask) =>
      runnerCall<{ leaseUntil: string; cancelRequested: boolean }>(
        `/tasks/${task.taskId}/heartbeat`,
        { leaseToken: task.leaseToken },
        token,
      ),
    complete: (task: LeasedTask, result: Record<string, unknown> = { ok: true }) =>
      runnerCall(`/tasks/${task.taskId}/complete`, { leaseToken: task.leaseToken, result }, token),
    fail: (task: LeasedTask, code = "processing_failed", retryable = true, message = "boom") =>
      runnerCall(`/tasks/${task.taskId}/fail`, { leaseToken: task.leaseToken, error: { code, message, retryable } }, token),
    cancelled: (task: LeasedTask) => runnerCall(`/tasks/${task.taskId}/cancelled`, { leaseToken: task.leaseToken }, token),
    release: (task: LeasedTask) => runnerCall(`/tasks/${task.taskId}/release`, { leaseToken: task.leaseToken }, token),
    transcript: (task: LeasedTask, textSourceId: string) =>
      runnerCall<TranscriptDocument>(`/tasks/${task.taskId}/transcript`, { leaseToken: task.leaseToken, textSourceId }, token),
    call: <T = Record<string, unknown>>(task: LeasedTask, name: string, body: unknown) =>
      runnerCall<T>(`/tasks/${task.taskId}/calls/${name}`, { leaseToken: task.leaseToken, body }, token),
  };
  return runner;
}

export const fakeRunner = fakeRunnerWith();

/**
 * Cancels every unfinished job of the tenant, so no task is left in the shared lane for the next
 * test's runner to lease (storage is per file, not per test).
 */
export async function cancelUnfinished(t: Tenant): Promise<void> {
  const res = await call<Job[]>("GET", "/v1/jobs?statuses=pending,queued,processing&limit=100", { key: t.projectKey });
  for (const j of res.body.data ?? []) await call("POST", `/v1/jobs/${j.jobId}/cancel`, { key: t.projectKey });
}
