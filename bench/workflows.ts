import { apiCall, bootstrap } from "../scripts/lib/api-client";
import { LOCAL_ADMIN_SECRET } from "../scripts/lib/stack";
import { S3Client } from "../contracts/s3-client";
import type { Job } from "../contracts/job";
import type { Workflow } from "../contracts/workflows";
import { fmt, machineInfo, sleep, summarize, table, withFreshStack } from "./lib";

/**
 * A workflow's hand-off (issue 26): how long after one step's job completes the next step's job
 * exists, when the WorkflowDO makes it (told by the finished job's JobDO), beside the baseline a
 * customer writes today, a client that polls the job every 250 ms (or 50 ms) and then creates the
 * next one. Each chain is three transcription jobs on a free one-stage test pipeline, run by a real
 * gpu-runner on the local stack; the hand-off is next job's `createdAt` minus previous `completedAt`
 * (the server's own clocks), and the chain's wall time is measured from the first create's call.
 *
 *   npx tsx bench/workflows.ts
 *   BENCH_CHAINS=10 BENCH_API_PORT=18995 npx tsx bench/workflows.ts
 */

const CHAINS = Number(process.env["BENCH_CHAINS"] ?? 10);
const API_PORT = Number(process.env["BENCH_API_PORT"] ?? 18995);
const STEPS = 3;

const at = (iso: string | null): number => (iso ? Date.parse(iso) : Number.NaN);

await withFreshStack(
  {
    apiPort: API_PORT,
    runners: 1,
    runnerConcurrency: 2,
    runnerEnv: {
      RUNNER_ENABLE_TEST_HANDLERS: "true",
      RUNNER_POLL_MIN_MS: "200",
      RUNNER_POLL_MAX_MS: "1000",
      RUNNER_LEASE_WAIT_SECONDS: "5",
    },
    vars: { ALLOW_TEST_PIPELINES: "true" },
  },
  async (stack) => {
    const tenant = await bootstrap({
      apiBaseUrl: stack.apiBaseUrl,
      adminSecret: LOCAL_ADMIN_SECRET,
      name: "bench-workflows",
      plan: "enterprise",
      bucket: stack.bucket,
      s3: stack.s3,
      settings: {
        testPipelines: {
          transcription: [{ name: "noop", executor: "runner", handler: "test.work", stages: ["work"], params: { stageMs: 0 } }],
        },
      },
    });
    const api = async <T>(method: string, p: string, body?: unknown) =>
      (await apiCall<T>(stack.apiBaseUrl, method, p, tenant.projectKey, body)).data;
    const { endpoint, region, accessKeyId, secretAccessKey } = stack.s3;
    const s3 = new S3Client({ endpoint, region, accessKeyId, secretAccessKey, forcePathStyle: true });
    const sourceKey = "bench/workflow.mp4";
    await s3.putObject(stack.bucket, sourceKey, new Uint8Array(1024), "video/mp4");
    const job = {
      serviceType: "transcription",
      input: { sourceType: "s3_direct", connectionId: tenant.connectionId, bucket: stack.bucket, sourceKey },
    };
    const jobOf = (id: string) => api<Job>("GET", `/v1/jobs/${id}`);

    /** Hand-offs (ms) of a finished chain's jobs, in order, and the chain's wall time. */
    const handOffs = async (jobIds: string[]): Promise<number[]> => {
      const jobs = await Promise.all(jobIds.map(jobOf));
      return jobs.slice(1).map((j, i) => at(j.createdAt) - at(jobs[i]?.completedAt ?? null));
    };

    async function viaWorkflow(): Promise<{ wallMs: number; handOffs: number[] }> {
      const started = performance.now();
      const steps = Array.from({ length: STEPS }, (_, i) => ({ id: `s${i}`, ...job, ...(i > 0 ? { dependsOn: [`s${i - 1}`] } : {}) }));
      const w = await api<Workflow>("POST", "/v1/workflows", { steps });
      for (;;) {
        const now = await api<Workflow>("GET", `/v1/workflows/${w.workflowId}`);
        if (now.status === "completed") {
          return { wallMs: performance.now() - started, handOffs: await handOffs(now.steps.map((s) => s.jobId as string)) };
        }
        if (now.status !== "running") throw new Error(`workflow ${now.status}: ${JSON.stringify(now.steps)}`);
        await sleep(25);
      }
    }

    async function viaClient(pollMs: number): Promise<{ wallMs: number; handOffs: number[] }> {
      const started = performance.now();
      const ids: string[] = [];
      for (let i = 0; i < STEPS; i++) {
        const created = await api<Job>("POST", "/v1/jobs", job);
        ids.push(created.jobId);
        for (let j = created; j.status !== "completed"; j = await jobOf(created.jobId)) {
          if (j.status === "failed" || j.status === "cancelled") throw new Error(`job ${j.jobId} ${j.status}`);
          await sleep(pollMs);
        }
      }
      return { wallMs: performance.now() - started, handOffs: await handOffs(ids) };
    }

    type R = Awaited<ReturnType<typeof viaWorkflow>>;
    const runs: Record<"workflow" | "poll250" | "poll50", R[]> = { workflow: [], poll250: [], poll50: [] };
    // One untimed chain of each first: the first workflow also starts the WorkflowDO class.
    await viaWorkflow();
    await viaClient(250);
    // Interleaved, so the machine's load falls on all three alike.
    for (let i = 0; i < CHAINS; i++) {
      runs.workflow.push(await viaWorkflow());
      runs.poll250.push(await viaClient(250));
      runs.poll50.push(await viaClient(50));
    }
    const row = (name: string, rs: R[]) => {
      const h = summarize(rs.flatMap((r) => r.handOffs));
      const w = summarize(rs.map((r) => r.wallMs));
      return [name, String(rs.length), fmt(h.p50, 0), fmt(h.p99, 0), fmt(w.p50, 0), fmt(w.p99, 0)];
    };
    console.log(`\n${machineInfo()}\n${CHAINS} chains of ${STEPS} free transcription jobs each, interleaved\n`);
    console.log(
      table(
        ["who hands off", "chains", "hand-off p50 ms", "hand-off p99 ms", "chain wall p50 ms", "chain wall p99 ms"],
        [
          row("the workflow (WorkflowDO)", runs.workflow),
          row("baseline: client polling 250 ms", runs.poll250),
          row("baseline: client polling 50 ms", runs.poll50),
        ],
      ),
    );
  },
);
