import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll } from "vitest";
import type { StepSpec } from "../../../contracts/pipelines";
import { cancelUnfinished, patchSettings, useTestPipeline } from "./jobs";
import { createTenant, type Tenant } from "./tenant";

/**
 * The arrangement shared by the files that drive jobs through the lease protocol: one pro tenant,
 * a test pipeline for `transcription`, the settings the file needs, and after each test every
 * unfinished job cancelled, so no task is left in the shared lane for the next test's runner
 * (storage is per file, not per test). Call it at the top of the file; the returned tenant is
 * filled in before the first test runs.
 */
export function useMachineryTenant(opts: {
  steps: Array<Partial<StepSpec> & { stages: string[] }>;
  settings?: Record<string, unknown>;
}): Tenant {
  const t = {} as Tenant;
  beforeAll(async () => {
    // Pro: the free plan's 10 transcription jobs a month would run out within one file.
    Object.assign(t, await createTenant({ plan: "pro" }));
    await useTestPipeline("transcription", opts.steps);
    if (opts.settings) await patchSettings(opts.settings);
  });
  afterEach(() => cancelUnfinished(t));
  return t;
}

/** The states of a job's runner tasks (its rows in the runner lane), oldest first. */
export async function runnerTaskStates(jobId: string): Promise<string[]> {
  const rows = await env.DB.prepare("SELECT state FROM runner_tasks WHERE job_id = ? ORDER BY created_at")
    .bind(jobId)
    .all<{ state: string }>();
  return rows.results.map((r) => r.state);
}

export const jobDO = (jobId: string) => env.JOBS.get(env.JOBS.idFromName(jobId));

/**
 * The job's runner lease runs out now: its expiry is moved into the past and the JobDO alarm
 * fired, as it would fire at the real expiry. No test waits out a lease.
 */
export async function expireLease(jobId: string): Promise<void> {
  const stub = jobDO(jobId);
  await runInDurableObject(stub, (instance) => {
    // JobDO keeps its state private; the lease expiry is the one field the alarm checks.
    const state = (instance as unknown as { state: { lease: { until: string } | null } | null }).state;
    if (!state?.lease) throw new Error(`job ${jobId} holds no runner lease`);
    state.lease.until = new Date(Date.now() - 1_000).toISOString();
  });
  if (!(await runDurableObjectAlarm(stub))) throw new Error(`job ${jobId} had no alarm scheduled`);
}
