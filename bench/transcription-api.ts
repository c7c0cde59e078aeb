import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Job, ProgressEntry } from "../contracts/job";
import { S3Client } from "../contracts/s3-client";
import { wordErrorRate } from "../gpu-runner/services/transcription/wer";
import { apiCall, bootstrap } from "../scripts/lib/api-client";
import { LOCAL_ADMIN_SECRET, ROOT } from "../scripts/lib/stack";
import { makeSamples } from "../scripts/make-sample-media";
import { fmt, machineInfo, sleep, table, timeCli, withFreshStack } from "./lib";

/**
 * Transcription through the whole API path against the PocketSphinx command-line tool, in one run:
 * the sample video (public-domain LibriVox speech) is uploaded to the local bucket, submitted with
 * POST /v1/jobs, polled until completed, and its transcript read back with GET /v1/transcriptions.
 * The baseline runs pocketsphinx_continuous on the same speech. Runs alternate so both see the
 * same machine load; the medians are compared.
 *
 *   npx tsx bench/transcription-api.ts [--runs 3]
 */
/**
 * One line: the time from create to the first stage starting (queue, dispatch, lease), each
 * top-level stage's own duration, and the time from the last stage to `completed` (result sink, D1).
 */
function stageBreakdown(job: Job, progress: ProgressEntry[]): string {
  const ms = (iso: string) => Date.parse(iso);
  const started = new Map<string, number>();
  const parts: string[] = [];
  let first: number | undefined;
  let last = ms(job.createdAt);
  for (const p of progress) {
    if (p.event === "started") {
      started.set(p.stage, ms(p.at));
      first ??= ms(p.at);
    } else if (p.event === "completed" && started.has(p.stage)) {
      parts.push(`${p.stage} ${ms(p.at) - started.get(p.stage)!} ms`);
      last = Math.max(last, ms(p.at));
    } else if (p.event === "skipped") parts.push(`${p.stage} skipped`);
  }
  const head = first === undefined ? "" : `create → first stage ${first - ms(job.createdAt)} ms; `;
  const tail = job.completedAt ? `; last stage → completed ${ms(job.completedAt) - last} ms` : "";
  return head + parts.join(", ") + tail;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
  const runs = Math.max(1, Number(values.runs));
  console.log(machineInfo());
  const samples = await makeSamples(path.join(ROOT, ".local/samples"));
  const reference = await readFile(samples.reference, "utf8");

  await withFreshStack({ apiPort: Number(process.env["BENCH_API_PORT"] ?? 18992), runners: 1 }, async (stack) => {
    const tenant = await bootstrap({
      apiBaseUrl: stack.apiBaseUrl,
      adminSecret: LOCAL_ADMIN_SECRET,
      name: "bench",
      plan: "enterprise",
      bucket: stack.bucket,
      s3: stack.s3,
    });
    const s3 = new S3Client({ ...tenant.s3, forcePathStyle: true });
    // Stage timelines are a console view: a console session reads them.
    const session = await apiCall<{ secret: string }>(stack.apiBaseUrl, "POST", "/v1/console/sessions", tenant.workspaceKey, {
      projectId: tenant.projectId,
      userHandle: "bench",
    });
    await s3.putObject(tenant.bucket, "bench/sample.mp4", await readFile(samples.video), "video/mp4");
    console.log(`sample: ${path.relative(ROOT, samples.video)}; stack ${stack.apiBaseUrl}, 1 runner (RUNNER_CORES = all)\n`);

    const api: Array<{ wallMs: number; text: string; stages: string }> = [];
    const cli: Array<{ wallMs: number; text: string }> = [];
    for (let i = 0; i < runs; i++) {
      cli.push(await timeCli(samples.speechWav));
      const started = performance.now();
      const created = await apiCall<Job>(stack.apiBaseUrl, "POST", "/v1/jobs", tenant.projectKey, {
        serviceType: "transcription",
        input: { sourceType: "s3_direct", connectionId: tenant.connectionId, bucket: tenant.bucket, sourceKey: "bench/sample.mp4" },
      });
      let job = created.data;
      while (!["completed", "failed", "cancelled"].includes(job.status)) {
        await sleep(50);
        job = (await apiCall<Job>(stack.apiBaseUrl, "GET", `/v1/jobs/${job.jobId}`, tenant.projectKey)).data;
      }
      const wallMs = performance.now() - started;
      if (job.status !== "completed") throw new Error(`job ${job.jobId} ${job.status}: ${JSON.stringify(job.error)}`);
      const txt = String((job.resultSummary as { textSourceId: string }).textSourceId);
      const t = await apiCall<{ segments: Array<{ text: string }> }>(
        stack.apiBaseUrl,
        "GET",
        `/v1/transcriptions/${txt}?layers=raw`,
        tenant.projectKey,
      );
      const raw = (t.data as unknown as { raw: Array<{ text: string }> }).raw;
      const progress = await apiCall<{ progress: ProgressEntry[] }>(
        stack.apiBaseUrl,
        "GET",
        `/v1/jobs/${job.jobId}/progress`,
        session.data.secret,
      );
      api.push({ wallMs, text: raw.map((s) => s.text).join(" "), stages: stageBreakdown(job, progress.data.progress) });
      console.log(`run ${i + 1}: CLI ${fmt(cli[i]!.wallMs / 1000)} s, API submit → completed ${fmt(wallMs / 1000)} s`);
    }
    const median = <T extends { wallMs: number }>(xs: T[]) => [...xs].sort((a, b) => a.wallMs - b.wallMs)[Math.floor(xs.length / 2)]!;
    const c = median(cli);
    const a = median(api);
    const werC = wordErrorRate(reference, c.text);
    const werA = wordErrorRate(reference, a.text);
    console.log(
      "\n" +
        table(
          ["path (median of " + runs + ")", "WER", "errors / words", "wall time", "vs CLI"],
          [
            [
              "pocketsphinx_continuous on the speech WAV",
              `${fmt(werC.wer * 100)} %`,
              `${werC.errors} / ${werC.referenceWords}`,
              `${fmt(c.wallMs / 1000)} s`,
              "1.00×",
            ],
            [
              "POST /v1/jobs → completed (whole API path)",
              `${fmt(werA.wer * 100)} %`,
              `${werA.errors} / ${werA.referenceWords}`,
              `${fmt(a.wallMs / 1000)} s`,
              `${fmt(a.wallMs / c.wallMs, 2)}×`,
            ],
          ],
        ),
    );
    console.log(`\nWhere the API path's time went (the median run): ${a.stages}`);
    console.log(
      "\nThe API path includes queueing, lease, download, probe, audio extraction, denoise, video analysis, the four uploads and the transcript write.",
    );
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
