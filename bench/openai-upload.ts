import { randomBytes } from "node:crypto";
import { LOCAL_ADMIN_SECRET } from "../scripts/lib/stack";
import { benchTenant, collectServerTiming, fmt, machineInfo, summarize, table, withFreshStack, type Phases } from "./lib";

/**
 * What `POST /v1/audio/transcriptions` (the OpenAI-compatible endpoint) costs a client up to the
 * job being made, beside what the same client does without it, in the same run on one fresh local
 * stack: PUT the file into the bucket itself, then `POST /v1/jobs`. The endpoint's wait is set to
 * 0 and no runner runs, so each request ends at its 202: the figures are the upload and the create,
 * not the transcription (whose time is the runner's either way).
 *
 *   npx tsx bench/openai-upload.ts                  # 15 requests per size and path, 1 and 10 MiB
 *   BENCH_REQUESTS=15 BENCH_API_PORT=19314 npx tsx bench/openai-upload.ts
 *
 * Sequential, one client (Node's fetch): the latency of one request, not throughput. The local S3
 * server (s3rver) runs in this process; both paths write to it once per request.
 */

const REQUESTS = Number(process.env["BENCH_REQUESTS"] ?? 15);
const API_PORT = Number(process.env["BENCH_API_PORT"] ?? 19314);
const SIZES_MIB = [1, 10];

await withFreshStack({ apiPort: API_PORT, runners: 0, localEngines: false }, async (stack) => {
  const { tenant, s3 } = await benchTenant(stack);
  const admin = await fetch(`${stack.apiBaseUrl}/admin/v1/settings`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${LOCAL_ADMIN_SECRET}`, "content-type": "application/json" },
    body: JSON.stringify({ transcription: { openAiWaitSeconds: 0 } }),
  });
  if (!admin.ok) throw new Error(`settings: ${admin.status} ${await admin.text()}`);
  const auth = { authorization: `Bearer ${tenant.projectKey}` };

  /** The baseline: the client puts the file in the bucket, then creates the job. */
  async function putThenCreate(bytes: Uint8Array<ArrayBuffer>, i: number): Promise<void> {
    const key = `bench/openai-baseline/${i}-${Date.now()}.mp4`;
    await s3.putObject(tenant.bucket, key, bytes, "video/mp4");
    const res = await fetch(`${stack.apiBaseUrl}/v1/jobs`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        serviceType: "transcription",
        input: { sourceType: "s3_direct", connectionId: tenant.connectionId, bucket: tenant.bucket, sourceKey: key },
      }),
    });
    if (res.status !== 201) throw new Error(`POST /v1/jobs: ${res.status} ${await res.text()}`);
  }

  /** The endpoint: one multipart request, answered 202 once the job is made. */
  async function upload(bytes: Uint8Array<ArrayBuffer>, phases: Phases): Promise<void> {
    const form = new FormData();
    form.append("file", new File([bytes], "talk.mp4"));
    form.append("model", "whisper-1");
    const res = await fetch(`${stack.apiBaseUrl}/v1/audio/transcriptions`, { method: "POST", headers: auth, body: form });
    if (res.status !== 202) throw new Error(`POST /v1/audio/transcriptions: ${res.status} ${await res.text()}`);
    collectServerTiming(res, phases);
    await res.body?.cancel();
  }

  async function timed(run: (i: number) => Promise<void>): Promise<number[]> {
    const ms: number[] = [];
    await run(-1); // warm-up, not counted
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = performance.now();
      await run(i);
      ms.push(performance.now() - t0);
    }
    return ms;
  }

  const rows: string[][] = [];
  for (const mib of SIZES_MIB) {
    const bytes = new Uint8Array(randomBytes(mib * 1024 * 1024));
    const phases: Phases = new Map();
    const base = summarize(await timed((i) => putThenCreate(bytes, i)));
    const ours = summarize(await timed(() => upload(bytes, phases)));
    const upl = summarize(phases.get("upload") ?? []);
    rows.push([`${mib} MiB`, "PUT to bucket + POST /v1/jobs (baseline)", fmt(base.p50), fmt(base.p99), fmt(base.mean), "-"]);
    rows.push([`${mib} MiB`, "POST /v1/audio/transcriptions (202)", fmt(ours.p50), fmt(ours.p99), fmt(ours.mean), fmt(upl.p50)]);
  }
  console.log(machineInfo());
  console.log(`${REQUESTS} sequential requests per row (one warm-up first)\n`);
  console.log(table(["file", "path", "p50 ms", "p99 ms", "mean ms", "Worker's upload PUT p50 ms"], rows));
});
