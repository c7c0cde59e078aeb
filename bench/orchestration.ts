import { readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { apiCall, bootstrap, type BootstrapResult } from "../scripts/lib/api-client";
import { LOCAL_ADMIN_SECRET, ROOT, type Stack } from "../scripts/lib/stack";
import { S3Client } from "../contracts/s3-client";
import type { Job, JobProgressView } from "../contracts/job";
import { startWebhookReceiver } from "../test/support/webhook-receiver";
import { fmt, machineInfo, sleep, summarize, table, withFreshStack } from "./lib";

/**
 * Orchestration overhead: submit → completed wall time for a transcription job whose one stage
 * costs nothing (test pipeline `test.work`, stageMs 0, run by a real gpu-runner), minus the stage
 * work itself. 30 jobs one after another, then 30 submitted at once. Completion is seen three
 * ways: the server's `completedAt`, a GET poll every 50 ms (sequential run only) and the
 * `job.completed` webhook on a loopback receiver. Per job the time is split with the server's own
 * timestamps: create call, dispatch queue (job created → runner task row written by the dispatch
 * consumer, read from the local D1 file), runner lease poll (task row → lease), runner run
 * (lease → completed; the progress events' started → completed is the awaited `started` POST plus the stage).
 *
 * Then the same sequential run on a three-step pipeline (runner, Worker, runner; every step
 * free), beside the one-step figure measured in the same run: the overhead per step.
 *
 *   npx tsx bench/orchestration.ts
 *   BENCH_JOBS=30 BENCH_RUNNER_CONCURRENCY=4 BENCH_API_PORT=18991 npx tsx bench/orchestration.ts
 *   BENCH_LEASE_WAIT_SECONDS=0 npx tsx bench/orchestration.ts   # plain lease polling instead of the long poll
 */

const JOBS = Number(process.env["BENCH_JOBS"] ?? 30);
const API_PORT = Number(process.env["BENCH_API_PORT"] ?? 18991);
const RUNNER_CONCURRENCY = Number(process.env["BENCH_RUNNER_CONCURRENCY"] ?? 4);
const POLL = {
  RUNNER_POLL_MIN_MS: process.env["BENCH_RUNNER_POLL_MIN_MS"] ?? "200",
  RUNNER_POLL_MAX_MS: process.env["BENCH_RUNNER_POLL_MAX_MS"] ?? "1000",
};
const LEASE_WAIT_SECONDS = process.env["BENCH_LEASE_WAIT_SECONDS"] ?? "5";
const GET_POLL_MS = 50;
/** The stage's own work: test.work sleeps stageMs per stage (and writes a tiny file); this is what is subtracted. */
const STAGE_MS = 0;

interface Sample {
  jobId: string;
  submitAt: number;
  createdResponseAt: number;
  observedAt?: number;
  webhookAt?: number;
  job?: Job;
  taskCreatedAt?: number;
  stageMs?: number;
}

const t = (iso: string | null | undefined): number => (iso ? Date.parse(iso) : Number.NaN);

/** Runner task rows (when the dispatch consumer turned the queue message into lane work), read from the local D1 file. */
async function runnerTaskTimes(stack: Stack): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const dir = path.join(stack.stateDir, "wrangler/v3/d1");
  const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith(".sqlite") && !f.includes("metadata"));
  const { DatabaseSync } = await import("node:sqlite");
  for (const f of files) {
    const db = new DatabaseSync(path.join(dir, f), { readOnly: true });
    try {
      const rows = db.prepare("SELECT job_id, created_at FROM runner_tasks").all() as Array<{ job_id: string; created_at: string }>;
      for (const r of rows) out.set(r.job_id, Date.parse(r.created_at));
    } catch {
      // not the jobs database
    } finally {
      db.close();
    }
  }
  return out;
}

await withFreshStack(
  {
    apiPort: API_PORT,
    vars: { ALLOW_TEST_PIPELINES: "true" },
    runners: 1,
    runnerConcurrency: RUNNER_CONCURRENCY,
    runnerEnv: { RUNNER_ENABLE_TEST_HANDLERS: "true", RUNNER_LEASE_WAIT_SECONDS: LEASE_WAIT_SECONDS, ...POLL },
  },
  async (stack) => {
    const tenant: BootstrapResult = await bootstrap({
      apiBaseUrl: stack.apiBaseUrl,
      adminSecret: LOCAL_ADMIN_SECRET,
      name: "bench-orchestration",
      plan: "enterprise",
      bucket: stack.bucket,
      s3: stack.s3,
      settings: {
        webhooks: { allowLoopbackHttp: true },
        testPipelines: {
          transcription: [{ name: "noop", executor: "runner", handler: "test.work", stages: ["work"], params: { stageMs: STAGE_MS } }],
        },
      },
    });
    const base = stack.apiBaseUrl;
    const api = async <T>(method: string, p: string, body?: unknown) => (await apiCall<T>(base, method, p, tenant.projectKey, body)).data;
    const project = await apiCall<{ webhookSecret: string }>(
      base,
      "POST",
      `/v1/projects/${tenant.projectId}/webhook-secret`,
      tenant.workspaceKey,
    );
    const consoleKey = (
      await apiCall<{ secret: string }>(base, "POST", "/v1/console/sessions", tenant.workspaceKey, {
        projectId: tenant.projectId,
        userHandle: "bench",
      })
    ).data.secret;

    const hookAt = new Map<string, number>();
    const receiver = await startWebhookReceiver(
      () => project.data.webhookSecret,
      (r) => {
        if (r.body["event"] === "completed" && r.verified) hookAt.set(String(r.body["jobId"]), Date.now());
        return 200;
      },
    );

    try {
      const s3 = new S3Client({
        endpoint: stack.s3.endpoint,
        region: stack.s3.region,
        accessKeyId: stack.s3.accessKeyId,
        secretAccessKey: stack.s3.secretAccessKey,
        forcePathStyle: true,
      });
      const sourceKey = "bench/orchestration.mp4";
      await s3.putObject(tenant.bucket, sourceKey, new TextEncoder().encode("stand-in media"), "video/mp4");
      const submit = async (): Promise<Sample> => {
        const submitAt = Date.now();
        const job = await api<Job>("POST", "/v1/jobs", {
          serviceType: "transcription",
          input: { sourceType: "s3_direct", connectionId: tenant.connectionId, bucket: tenant.bucket, sourceKey },
          webhookUrl: receiver.url,
        });
        return { jobId: job.jobId, submitAt, createdResponseAt: Date.now() };
      };
      const waitFor = async (cond: () => boolean, what: string, timeoutMs = 60_000) => {
        const end = Date.now() + timeoutMs;
        while (!cond()) {
          if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
          await sleep(10);
        }
      };

      console.log(machineInfo());
      console.log(
        `stack: wrangler dev on ${base}; 1 gpu-runner, RUNNER_CONCURRENCY=${RUNNER_CONCURRENCY}, RUNNER_POLL_MIN_MS=${POLL.RUNNER_POLL_MIN_MS}, RUNNER_POLL_MAX_MS=${POLL.RUNNER_POLL_MAX_MS} (idle backoff min·2^n capped at max, equal jitter; polls again at once after getting work), RUNNER_LEASE_WAIT_SECONDS=${LEASE_WAIT_SECONDS} (${LEASE_WAIT_SECONDS === "0" ? "plain polling" : "long poll: the server holds an empty lease request until work arrives"})`,
      );
      const timeouts = [...readFileSync(path.join(ROOT, "wrangler.toml"), "utf8").matchAll(/^max_batch_timeout = (\d+)/gm)].map(
        (m) => m[1],
      );
      console.log(`queues (wrangler.toml): consumers max_batch_size = 10, max_batch_timeout = ${[...new Set(timeouts)].join("/")} s`);
      console.log(
        `pipeline: transcription → test pipeline, 1 runner step (test.work), 1 stage, stageMs ${STAGE_MS} (the stage work subtracted); ${JOBS} jobs sequential, then ${JOBS} at once\n`,
      );

      // Warm-up: one job end to end (first DO, first queue batch, runner's first lease).
      const warm = await submit();
      await waitFor(() => hookAt.has(warm.jobId), "warm-up job webhook");

      // Sequential: next job only after the previous one's webhook arrived.
      const sequential: Sample[] = [];
      for (let i = 0; i < JOBS; i++) {
        const s = await submit();
        for (;;) {
          const job = await api<Job>("GET", `/v1/jobs/${s.jobId}`);
          if (job.status === "completed") {
            s.observedAt = Date.now();
            break;
          }
          if (job.status === "failed" || job.status === "cancelled")
            throw new Error(`job ${s.jobId} ${job.status}: ${JSON.stringify(job.error)}`);
          if (Date.now() - s.submitAt > 60_000) throw new Error(`job ${s.jobId} still ${job.status} after 60 s`);
          await sleep(GET_POLL_MS);
        }
        await waitFor(() => hookAt.has(s.jobId), `webhook for ${s.jobId}`);
        sequential.push(s);
      }

      // Burst: all at once; completion seen by webhook only (30 pollers would load the API).
      const burstStart = Date.now();
      const burst = await Promise.all(Array.from({ length: JOBS }, submit));
      const burstSubmitted = Date.now();
      await waitFor(() => burst.every((s) => hookAt.has(s.jobId)), "burst webhooks", 120_000);
      const burstDone = Date.now();

      // Server-side timestamps and the stage's own duration.
      const taskTimes = await runnerTaskTimes(stack).catch((err: unknown) => {
        console.log(`(could not read runner_tasks from the local D1 file: ${String(err)}; dispatch/lease split omitted)`);
        return new Map<string, number>();
      });
      for (const s of [...sequential, ...burst]) {
        s.webhookAt = hookAt.get(s.jobId) as number;
        s.job = await api<Job>("GET", `/v1/jobs/${s.jobId}`);
        if (s.job.status !== "completed") throw new Error(`job ${s.jobId} is ${s.job.status}`);
        const view = (await apiCall<JobProgressView>(base, "GET", `/v1/jobs/${s.jobId}/progress`, consoleKey)).data;
        const started = view.progress.find((p) => p.event === "started");
        const completed = view.progress.find((p) => p.event === "completed");
        s.stageMs = started && completed ? t(completed.at) - t(started.at) : 0;
        const tc = taskTimes.get(s.jobId);
        if (tc !== undefined) s.taskCreatedAt = tc;
      }

      const report = (label: string, samples: Sample[], withPoll: boolean) => {
        const m = (f: (s: Sample) => number) => summarize(samples.map(f).filter((v) => Number.isFinite(v)));
        const rows: Array<[string, (s: Sample) => number]> = [
          ["create call (POST /v1/jobs round trip)", (s) => s.createdResponseAt - s.submitAt],
          ["dispatch queue: job createdAt → runner task row", (s) => (s.taskCreatedAt ?? Number.NaN) - t(s.job?.createdAt)],
          ["runner lease poll: task row → startedAt (lease)", (s) => t(s.job?.startedAt) - (s.taskCreatedAt ?? Number.NaN)],
          ["createdAt → startedAt (queue + poll)", (s) => t(s.job?.startedAt) - t(s.job?.createdAt)],
          ["runner run: startedAt → completedAt", (s) => t(s.job?.completedAt) - t(s.job?.startedAt)],
          ["  of which progress started.at → completed.at (the awaited `started` event POST + the 0 ms stage)", (s) => s.stageMs ?? 0],
          ["completedAt → webhook received (webhook queue)", (s) => (s.webhookAt ?? Number.NaN) - t(s.job?.completedAt)],
          ...(withPoll
            ? ([["completedAt → seen by 50 ms GET poll", (s: Sample) => (s.observedAt ?? Number.NaN) - t(s.job?.completedAt)]] as Array<
                [string, (s: Sample) => number]
              >)
            : []),
          ["OVERHEAD submit → completedAt (server) − stage work", (s) => t(s.job?.completedAt) - s.submitAt - STAGE_MS],
          ...(withPoll
            ? ([
                ["OVERHEAD submit → seen by GET poll − stage work", (s: Sample) => (s.observedAt ?? Number.NaN) - s.submitAt - STAGE_MS],
              ] as Array<[string, (s: Sample) => number]>)
            : []),
          ["OVERHEAD submit → webhook received − stage work", (s) => (s.webhookAt ?? Number.NaN) - s.submitAt - STAGE_MS],
        ];
        console.log(`\n${label}`);
        console.log(
          table(
            ["segment (ms per job)", "n", "p50", "p99", "min", "max", "mean"],
            rows.map(([name, f]) => {
              const s = m(f);
              return [name, String(s.n), fmt(s.p50, 0), fmt(s.p99, 0), fmt(s.min, 0), fmt(s.max, 0), fmt(s.mean, 0)];
            }),
          ),
        );
      };
      report(`Sequential: ${JOBS} jobs, one at a time`, sequential, true);
      report(`Burst: ${JOBS} jobs submitted at once`, burst, false);
      console.log(
        `\nburst: all ${JOBS} creates answered in ${burstSubmitted - burstStart} ms; last webhook ${burstDone - burstStart} ms after the first submit (${fmt((JOBS * 1000) / (burstDone - burstStart), 2)} jobs/s end to end)`,
      );
      // Three steps (runner, Worker, runner), all free: the overhead per step beside the one-step run above.
      const patched = await fetch(`${base}/admin/v1/settings`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${LOCAL_ADMIN_SECRET}`, "content-type": "application/json" },
        body: JSON.stringify({
          testPipelines: {
            transcription: [
              { name: "first", executor: "runner", handler: "test.work", stages: ["work"], params: { stageMs: STAGE_MS } },
              { name: "middle", executor: "worker", handler: "test.work", stages: ["work"], params: {} },
              { name: "last", executor: "runner", handler: "test.work", stages: ["work"], params: { stageMs: STAGE_MS } },
            ],
          },
        }),
      });
      if (!patched.ok) throw new Error(`settings PATCH failed: ${patched.status} ${await patched.text()}`);
      const threeStep: number[] = [];
      for (let i = 0; i < JOBS; i++) {
        const s = await submit();
        await waitFor(() => hookAt.has(s.jobId), `webhook for ${s.jobId}`);
        const job = await api<Job>("GET", `/v1/jobs/${s.jobId}`);
        if (job.status !== "completed") throw new Error(`job ${s.jobId} is ${job.status}`);
        threeStep.push(t(job.completedAt) - s.submitAt);
      }
      const one = summarize(sequential.map((s) => t(s.job?.completedAt) - s.submitAt));
      const three = summarize(threeStep);
      console.log(`\nOverhead per step: ${JOBS} jobs one at a time, submit → completedAt (server), every step free`);
      console.log(
        table(
          ["pipeline", "steps", "p50 ms", "p99 ms", "p50 per step", "p50 per added step"],
          [
            ["1 step (runner)", "1", fmt(one.p50, 0), fmt(one.p99, 0), fmt(one.p50, 0), "—"],
            [
              "3 steps (runner, Worker, runner)",
              "3",
              fmt(three.p50, 0),
              fmt(three.p99, 0),
              fmt(three.p50 / 3, 0),
              fmt((three.p50 - one.p50) / 2, 0),
            ],
          ],
        ),
      );
      console.log(
        `load average at end: ${os
          .loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")} (other work on the machine shares the ${os.availableParallelism()} cores)`,
      );
    } finally {
      await receiver.close();
    }
  },
);
