import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir, readFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { S3Client } from "../contracts/s3-client";
import { TranscriptionResultSchema } from "../contracts/transcript";
import { TranscriptionStoredSchema } from "../contracts/services/transcription";
import { NO_OUTPUTS, typedContext } from "../test/support/typed-context";
import { createTranscriptionHandler } from "../gpu-runner/services/transcription/handler";
import { extractAudio } from "../gpu-runner/media/ffmpeg";
import { wordErrorRate } from "../gpu-runner/services/transcription/wer";
import { buildCardReel, buildVideo, makeSamples } from "../scripts/make-sample-media";
import { makeHandlerContext, storageGrant } from "../test/support/handler-context";
import { startLocalS3 } from "../scripts/lib/local-s3";
import { timeCli } from "./lib";

/**
 * Transcription benchmark: accuracy and speed of the runner's transcription path against the
 * PocketSphinx command-line tool on the same audio, chunk parallelism, and peak memory.
 *
 *   npx tsx bench/transcription-accuracy.ts [--samples .local/samples] [--parallel-minutes 20]
 *                                           [--rss-minutes 60] [--skip-parallel] [--skip-rss]
 *
 * Each handler run happens in a child process (this script with --child) that talks to a local
 * S3, so its wall time covers download → probe → audio → transcription → video analysis →
 * uploads, and its memory can be measured on its own: the parent samples the resident set of the
 * child and all its descendants (ffmpeg, pocketsphinx) from /proc every 100 ms and keeps the peak
 * of the sum.
 */

const BUCKET = "bench-media";

interface ChildJob {
  endpoint: string;
  key: string;
  cores: number;
  settings: Record<string, unknown>;
}

interface ChildReport {
  wallMs: number;
  text: string;
  segments: number;
  durationSec: number;
  timeline: string[];
  stageMs: Record<string, number>;
}

// ---------------------------------------------------------------------------------------------
// Child: run the handler once and report.

async function child(job: ChildJob): Promise<void> {
  const s3 = { endpoint: job.endpoint, region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
  const ctx = await makeHandlerContext({
    // As create stores a bucket job's input (worker/services/transcription/resolve.ts).
    input: {
      textSourceId: "txt_bench",
      sourceType: "s3_direct",
      connectionId: "stc_bench",
      bucket: BUCKET,
      sourceKey: job.key,
      resolvedOutputPrefix: "out/",
      options: { preprocessing: { extract: true, denoise: true, separateVocals: false } },
      resolvedOutputKeys: {
        fullText: `out/${job.key}.txt`,
        segments: `out/${job.key}.json`,
        srt: `out/${job.key}.srt`,
        vtt: `out/${job.key}.vtt`,
      },
    },
    storage: storageGrant(s3, BUCKET),
    settings: { transcription: job.settings },
    cores: job.cores,
  });
  const started = performance.now();
  try {
    const result = TranscriptionResultSchema.parse(
      await createTranscriptionHandler()(typedContext(ctx, { input: TranscriptionStoredSchema, outputs: NO_OUTPUTS })),
    );
    const report: ChildReport = {
      wallMs: performance.now() - started,
      text: result.segments.map((s) => s.text).join(" "),
      segments: result.segments.length,
      durationSec: result.durationSec,
      timeline: ctx.report.timeline(),
      stageMs: ctx.report.durations(),
    };
    process.stdout.write(JSON.stringify(report) + "\n");
  } finally {
    await ctx.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// Parent: memory sampling of a process tree.

async function treeRssKb(root: number): Promise<number> {
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = await readFile(`/proc/${entry}/status`, "utf8");
      const ppid = /PPid:\s+(\d+)/.exec(status)?.[1];
      const vm = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
      parents.set(Number(entry), Number(ppid ?? 0));
      rss.set(Number(entry), Number(vm ?? 0));
    } catch {
      // The process ended between readdir and read.
    }
  }
  let total = 0;
  for (const [pid, kb] of rss) {
    for (let p: number | undefined = pid; p; p = parents.get(p)) {
      if (p === root) {
        total += kb;
        break;
      }
    }
  }
  return total;
}

async function runChild(job: ChildJob): Promise<ChildReport & { peakRssMb: number }> {
  const self = fileURLToPath(import.meta.url);
  const proc = spawn(process.execPath, ["--import", "tsx", self, "--child", JSON.stringify(job)], { stdio: ["ignore", "pipe", "inherit"] });
  let peakKb = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      if (proc.pid) peakKb = Math.max(peakKb, await treeRssKb(proc.pid));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  let out = "";
  proc.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  const code = await new Promise<number | null>((resolve) => proc.once("close", resolve));
  sampling = false;
  await sampler;
  if (code !== 0) throw new Error(`bench child exited with ${code}`);
  const report = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as ChildReport;
  return { ...report, peakRssMb: peakKb / 1024 };
}

// ---------------------------------------------------------------------------------------------

/** The run with the median wall time (the runs' texts are identical: decoding is deterministic). */
function median<T extends { wallMs: number }>(runs: T[]): T {
  return [...runs].sort((a, b) => a.wallMs - b.wallMs)[Math.floor(runs.length / 2)]!;
}

const fmtS = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const fmtPct = (x: number) => `${(x * 100).toFixed(1)} %`;

function table(rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join("  "));
}

async function ensureLong(dir: string, speechWav: string, minutes: number): Promise<string> {
  const file = path.join(dir, `long-${minutes}.mp4`);
  if (existsSync(file)) return file;
  const reel = path.join(dir, "bench-cards.mp4");
  if (!existsSync(reel)) await buildCardReel(reel);
  console.log(`building a ${minutes}-minute source (${file})…`);
  await buildVideo(file, speechWav, reel, { loopAudio: true, durationSec: minutes * 60 });
  return file;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      samples: { type: "string", default: ".local/samples" },
      "parallel-minutes": { type: "string", default: "20" },
      "rss-minutes": { type: "string", default: "60" },
      "skip-parallel": { type: "boolean", default: false },
      "skip-rss": { type: "boolean", default: false },
      repeat: { type: "string", default: "3" },
    },
  });
  const dir = path.resolve(values.samples);
  await mkdir(dir, { recursive: true });
  const set = await makeSamples(dir);
  const reference = await readFile(set.reference, "utf8");
  const s3 = await startLocalS3({ buckets: [BUCKET] });
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
  });
  const upload = async (file: string) => {
    const key = `src/${path.basename(file)}`;
    await client.putObject(BUCKET, key, await readFile(file), "video/mp4");
    return key;
  };
  console.log(`machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? "?"}; node ${process.version}\n`);

  try {
    // 1. Accuracy and speed on the sample video.
    const sampleKey = await upload(set.video);
    const wav = path.join(dir, "sample.extracted.wav");
    await extractAudio(set.video, wav);
    // Runs alternate (CLI, single, chunked, CLI, …) and the median wall time is kept, so a burst of
    // load on the machine does not land on one contender only.
    const repeat = Math.max(1, Number(values.repeat));
    const clis: Awaited<ReturnType<typeof timeCli>>[] = [];
    const singles: Awaited<ReturnType<typeof runChild>>[] = [];
    const chunkeds: Awaited<ReturnType<typeof runChild>>[] = [];
    for (let i = 0; i < repeat; i++) {
      clis.push(await timeCli(wav));
      singles.push(await runChild({ endpoint: s3.endpoint, key: sampleKey, cores: 2, settings: {} }));
      chunkeds.push(
        await runChild({ endpoint: s3.endpoint, key: sampleKey, cores: 2, settings: { singlePassMaxSec: 0, maxChunkSec: 10 } }),
      );
    }
    const cli = median(clis);
    const single = median(singles);
    const chunked = median(chunkeds);
    const werOf = (t: string) => wordErrorRate(reference, t);
    console.log(
      `Accuracy and speed, sample video (${single.durationSec.toFixed(1)} s of LibriVox speech, ${werOf("").referenceWords} reference words; median of ${repeat} alternating runs)`,
    );
    table([
      ["path", "WER", "errors", "wall time", "vs CLI", "peak RSS"],
      [
        "pocketsphinx_continuous on the extracted WAV",
        fmtPct(werOf(cli.text).wer),
        String(werOf(cli.text).errors),
        fmtS(cli.wallMs),
        "1.00×",
        `${cli.peakRssMb.toFixed(0)} MB`,
      ],
      [
        "handler, single pass (default settings)",
        fmtPct(werOf(single.text).wer),
        String(werOf(single.text).errors),
        fmtS(single.wallMs),
        `${(single.wallMs / cli.wallMs).toFixed(2)}×`,
        `${single.peakRssMb.toFixed(0)} MB`,
      ],
      [
        "handler, chunked (maxChunkSec 10)",
        fmtPct(werOf(chunked.text).wer),
        String(werOf(chunked.text).errors),
        fmtS(chunked.wallMs),
        `${(chunked.wallMs / cli.wallMs).toFixed(2)}×`,
        `${chunked.peakRssMb.toFixed(0)} MB`,
      ],
    ]);
    console.log("(handler wall time covers download, probe, extract, denoise, transcription, video analysis and the four uploads)");
    console.log(`single-pass stage times (ms): ${JSON.stringify(single.stageMs)}\n`);

    // 2. Chunk parallelism on a long source.
    if (!values["skip-parallel"]) {
      const minutes = Number(values["parallel-minutes"]);
      const key = await upload(await ensureLong(dir, set.speechWav, minutes));
      const one = await runChild({ endpoint: s3.endpoint, key, cores: 1, settings: {} });
      const two = await runChild({ endpoint: s3.endpoint, key, cores: 2, settings: {} });
      const chunks = two.timeline.filter((e) => e === "transcribe_chunk:completed").length;
      console.log(`Chunk parallelism, ${minutes}-minute source (${chunks} chunks of at most 120 s)`);
      table([
        ["workers", "wall time", "speed-up", "peak RSS"],
        ["1", fmtS(one.wallMs), "1.00×", `${one.peakRssMb.toFixed(0)} MB`],
        ["2", fmtS(two.wallMs), `${(one.wallMs / two.wallMs).toFixed(2)}×`, `${two.peakRssMb.toFixed(0)} MB`],
      ]);
      console.log("");
    }

    // 3. Peak memory on a one-hour source.
    if (!values["skip-rss"]) {
      const minutes = Number(values["rss-minutes"]);
      const key = await upload(await ensureLong(dir, set.speechWav, minutes));
      const r = await runChild({ endpoint: s3.endpoint, key, cores: 2, settings: {} });
      console.log(`Peak memory, ${minutes}-minute source, 2 workers`);
      table([
        ["wall time", "segments", "peak RSS (runner process + ffmpeg/pocketsphinx children)"],
        [fmtS(r.wallMs), String(r.segments), `${r.peakRssMb.toFixed(0)} MB`],
      ]);
    }
  } finally {
    await s3.close();
  }
}

const argv = process.argv.slice(2);
if (argv[0] === "--child") {
  child(JSON.parse(argv[1] ?? "{}") as ChildJob).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
