import os from "node:os";
import { benchTenant, collectServerTiming, fmt, machineInfo, runLoad, summarize, table, withFreshStack, type Phases } from "./lib";

/**
 * API benchmark: p50/p99 latency and requests/s for POST /v1/jobs, GET /v1/jobs/{id} and
 * GET /v1/jobs?limit=20 at a fixed concurrency on a fresh local stack, beside a bare Hono route on
 * the same local workerd (`/__bench/bare`, local only) as the ceiling.
 *
 *   npx tsx bench/api.ts            # defaults: 20 clients, 2000 requests or 20 s per endpoint
 *   BENCH_CONCURRENCY=20 BENCH_REQUESTS=2000 BENCH_SECONDS=20 BENCH_API_PORT=18990 BENCH_S3_PORT=18991 npx tsx bench/api.ts
 *
 * The clients are Node's fetch (undici, keep-alive pool) in this process. Note: the local S3
 * server (s3rver) runs in this same process, and every create does S3 probes against it.
 *
 * Where a create's time goes: every POST /v1/jobs answers a `Server-Timing` header (auth,
 * settings, references, quota, probes, charge, record, do and the Durable Object's own parts);
 * the p50 of each phase is printed beside the create's totals, per concurrency. The create's own
 * time in the Worker (`total` minus `probes`, per request: the S3 calls the spec requires are the
 * bucket's time, not the Worker's) is printed beside the bare route's p50 at the same concurrency.
 */

const CONCURRENCY = Number(process.env["BENCH_CONCURRENCY"] ?? 20);
const MAX_REQUESTS = Number(process.env["BENCH_REQUESTS"] ?? 2000);
const MAX_SECONDS = Number(process.env["BENCH_SECONDS"] ?? 20);
const WARMUP = 50;
/** The unloaded latency: one client, a short run, before each loaded run. */
const SERIAL_REQUESTS = 100;
const SERIAL_SECONDS = 5;
const API_PORT = Number(process.env["BENCH_API_PORT"] ?? 18990);
/** 0: any free port. */
const S3_PORT = Number(process.env["BENCH_S3_PORT"] ?? 0);
/** The synthetic phase: one create's `total` minus its `probes`. */
const OWN_TIME = "own (total − probes)";

interface RunResult {
  name: string;
  concurrency: number;
  requests: number;
  errors: number;
  latencies: number[];
  wallMs: number;
  firstError?: string;
}

type MakeRequest = (i: number) => { url: string; init: RequestInit; expect: number };
/** One operation; resolves to null when it succeeded, else to an error description. */
type Op = (i: number) => Promise<string | null>;

const httpOp =
  (make: MakeRequest, onOk?: (res: Response) => void): Op =>
  async (i) => {
    const { url, init, expect } = make(i);
    const res = await fetch(url, init);
    const body = await res.text();
    if (res.status !== expect) return `${res.status} ${body.slice(0, 300)}`;
    onOk?.(res);
    return null;
  };

/** The create's own time of the response just collected: its `total` minus its `probes` (0 when it made none). */
function collectOwnTime(into: Phases): void {
  const last = (name: string) => into.get(name)?.at(-1);
  const total = last("total");
  if (total === undefined) return;
  const own = into.get(OWN_TIME) ?? [];
  own.push(total - (last("probes") ?? 0));
  into.set(OWN_TIME, own);
}

/** One endpoint's load run, named (the shared loop: runLoad in bench/lib.ts). */
async function load(name: string, op: Op, opts: { requests: number; seconds: number; concurrency: number }): Promise<RunResult> {
  return { name, concurrency: opts.concurrency, ...(await runLoad(op, opts)) };
}

await withFreshStack({ apiPort: API_PORT, s3Port: S3_PORT, runners: 0 }, async (stack) => {
  const base = stack.apiBaseUrl;
  const { tenant, s3 } = await benchTenant(stack);
  const sourceKey = "bench/in.mp4";
  await s3.putObject(tenant.bucket, sourceKey, new TextEncoder().encode("stand-in media for the API benchmark"), "video/mp4");

  const auth = { authorization: `Bearer ${tenant.projectKey}` };
  const createBody = JSON.stringify({
    serviceType: "transcription",
    input: { sourceType: "s3_direct", connectionId: tenant.connectionId, bucket: tenant.bucket, sourceKey },
  });
  const createReq: MakeRequest = () => ({
    url: `${base}/v1/jobs`,
    init: { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: createBody },
    expect: 201,
  });

  // Find the status create answers, and seed one job for the GET.
  const probe = await fetch(createReq(0).url, createReq(0).init);
  const probeBody = (await probe.json()) as { data?: { jobId?: string } };
  if (probe.status < 200 || probe.status > 299 || !probeBody.data?.jobId)
    throw new Error(`create failed: ${probe.status} ${JSON.stringify(probeBody)}`);
  const jobId = probeBody.data.jobId;
  const createStatus = probe.status;

  // The create's phases of the run in progress (warm-up runs are dropped), kept per concurrency.
  let phases: Phases = new Map();
  const createPhases = new Map<number, Phases>();
  const endpoints: Array<{ name: string; op: Op }> = [
    { name: "GET /__bench/bare (ceiling)", op: httpOp(() => ({ url: `${base}/__bench/bare`, init: {}, expect: 200 })) },
    {
      name: "POST /v1/jobs",
      op: httpOp(
        (i) => ({ ...createReq(i), expect: createStatus }),
        (res) => {
          collectServerTiming(res, phases);
          collectOwnTime(phases);
        },
      ),
    },
    { name: "GET /v1/jobs/{id}", op: httpOp(() => ({ url: `${base}/v1/jobs/${jobId}`, init: { headers: auth }, expect: 200 })) },
    { name: "GET /v1/jobs?limit=20", op: httpOp(() => ({ url: `${base}/v1/jobs?limit=20`, init: { headers: auth }, expect: 200 })) },
    {
      // What the create's S3 checks cost by themselves: the same 5 calls, from here, against the same local S3.
      name: "S3 only: create's 1 ranged GET + 4 PUTs",
      op: async (i) => {
        await s3.probeObject(tenant.bucket, sourceKey, 1024);
        for (const f of ["a", "b", "c", "d"])
          await s3.putObject(tenant.bucket, `bench/s3only/${i}/${f}`, new Uint8Array(0), "application/octet-stream", 0);
        return null;
      },
    },
  ];

  console.log(machineInfo());
  console.log(
    `stack: wrangler dev (local workerd) on ${base}, local S3 (s3rver, in this process) on ${stack.s3.endpoint}, no runners (the dispatch consumer still runs for every created job)`,
  );
  console.log(
    `load: ${CONCURRENCY} concurrent keep-alive clients (Node fetch/undici), up to ${MAX_REQUESTS} requests or ${MAX_SECONDS} s per endpoint, after ${WARMUP} warm-up requests; each preceded by 1 client, up to ${SERIAL_REQUESTS} requests or ${SERIAL_SECONDS} s`,
  );
  console.log(
    "POST /v1/jobs body: transcription, s3_direct source (a 36-byte stand-in object); each create makes 5 S3 calls: 1 ranged GET (probe) + 4 empty PUTs (output keys)\n",
  );

  const results: RunResult[] = [];
  for (const e of endpoints) {
    await load(e.name, e.op, { requests: WARMUP, seconds: 30, concurrency: Math.min(CONCURRENCY, 10) });
    for (const [concurrency, requests, seconds] of [
      [1, SERIAL_REQUESTS, SERIAL_SECONDS],
      [CONCURRENCY, MAX_REQUESTS, MAX_SECONDS],
    ] as const) {
      phases = new Map();
      const r = await load(e.name, e.op, { requests, seconds, concurrency });
      if (e.name === "POST /v1/jobs") createPhases.set(concurrency, phases);
      results.push(r);
      const s = summarize(r.latencies);
      console.log(
        `  ${e.name} x${concurrency}: ${r.requests} in ${fmt(r.wallMs / 1000, 2)} s, p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms, ${r.errors} errors, load average ${os.loadavg()[0]?.toFixed(2)}${r.firstError ? ` (first error: ${r.firstError})` : ""}`,
      );
    }
  }

  const rps = (r: RunResult) => r.latencies.length / (r.wallMs / 1000);
  const bareAt = (c: number) => results.find((r) => r.name.startsWith("GET /__bench/bare") && r.concurrency === c) as RunResult;
  const rows = results.map((r) => {
    const s = summarize(r.latencies);
    const bare = bareAt(r.concurrency);
    return [
      r.name,
      String(r.requests),
      String(r.concurrency),
      fmt(s.p50),
      fmt(s.p99),
      fmt(rps(r), 0),
      r === bare ? "1.00" : fmt(rps(r) / rps(bare), 3),
      String(r.errors),
    ];
  });
  console.log(`\n${table(["endpoint", "requests", "concurrency", "p50 ms", "p99 ms", "req/s", "req/s vs bare", "errors"], rows)}`);

  // Each phase's p50 (not additive: medians of parts need not sum to the median total).
  const levels = [...createPhases.keys()];
  const names = [...new Set(levels.flatMap((c) => [...(createPhases.get(c) as Phases).keys()]))];
  const creates = (c: number) => results.find((r) => r.name === "POST /v1/jobs" && r.concurrency === c) as RunResult;
  const phaseRows = names.map((n) => [n, ...levels.map((c) => fmt(summarize(createPhases.get(c)?.get(n) ?? []).p50))]);
  phaseRows.push(["client-side latency", ...levels.map((c) => fmt(summarize(creates(c).latencies).p50))]);
  console.log(`\nPOST /v1/jobs, where the time goes: p50 ms per Server-Timing phase ("do.*" are the Durable Object's parts of "do")`);
  console.log(table(["phase", ...levels.map((c) => `x${c} p50 ms`)], phaseRows));

  // The goal of issue 23: the create's own time in the Worker at most 2× the bare route's p50.
  const ownRows = levels.map((c) => {
    const own = summarize(createPhases.get(c)?.get(OWN_TIME) ?? []);
    const bare = summarize(bareAt(c).latencies).p50;
    return [`x${c}`, fmt(own.p50), fmt(own.p99), fmt(bare), `${fmt(own.p50 / bare, 2)}×`];
  });
  console.log(`\nPOST /v1/jobs, the Worker's own time (Server-Timing total − probes, per request) beside the bare route, same run`);
  console.log(table(["clients", "own p50 ms", "own p99 ms", "bare p50 ms", "own p50 / bare p50"], ownRows));
  const jobs = await fetch(`${base}/v1/jobs?limit=1`, { headers: auth }).then(
    (r) => r.json() as Promise<{ metadata: { pagination?: { total?: number } } }>,
  );
  console.log(
    `\njobs in the project when the list ran: ~${jobs.metadata.pagination?.total ?? "?"} (GET /v1/jobs?limit=20 counts them all for pagination.total)`,
  );
  console.log(
    `load average at end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")} (other work on the machine shares the ${os.availableParallelism()} cores)`,
  );

  const failed = results.filter((r) => r.errors > 0);
  if (failed.length > 0)
    throw new Error(`requests failed: ${failed.map((r) => `${r.name} x${r.concurrency}: ${r.errors} (${r.firstError ?? ""})`).join("; ")}`);
});
