import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdtemp, open, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { S3Client } from "../contracts/s3-client";
import { BucketStore, PresignedStore } from "../gpu-runner/object-store";

/**
 * Memory of an upload: the runner's PresignedStore and BucketStore PUT a file of BENCH_MIB MiB to a
 * sink server in another process (so only the sender's memory is measured), beside a plain `fetch`
 * of the same stream without `redirect: "error"` / `window: null`, which undici tees and buffers
 * whole, and the bucket path as it was before it streamed (the file read whole, then signed and sent).
 *
 *   npx tsx bench/presigned-upload.ts          # BENCH_MIB=512 by default
 */

const MIB = Number(process.env["BENCH_MIB"] ?? 512);
const SINK = `
const server = require("node:http").createServer((req, res) => { let n = 0; req.on("data", (d) => (n += d.length)); req.on("end", () => res.writeHead(200).end(String(n))); });
server.listen(0, "127.0.0.1", () => console.log(server.address().port));`;

async function startSink(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ["-e", SINK], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(d.toString().trim())));
  return { url: `http://127.0.0.1:${port}/bucket/big.bin?X-Amz-Signature=bench`, stop: () => child.kill() };
}

async function measure(name: string, run: () => Promise<unknown>) {
  const base = process.memoryUsage();
  let rss = base.rss;
  let buffers = base.arrayBuffers;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    buffers = Math.max(buffers, m.arrayBuffers);
  }, 10);
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  clearInterval(timer);
  const mib = (b: number) => (b / 1048576).toFixed(0);
  console.log(
    `${name.padEnd(34)} ${ms.toFixed(0).padStart(6)} ms  ${((MIB * 1000) / ms).toFixed(0).padStart(5)} MiB/s  ` +
      `peak RSS +${mib(rss - base.rss)} MiB  peak ArrayBuffers +${mib(buffers - base.arrayBuffers)} MiB`,
  );
}

/** Uploads only: no download bound applies. */
const UPLOAD_ONLY = { maxBytes: Number.MAX_SAFE_INTEGER, minFreeDiskBytes: 0 };

/** The ways to send the file; each is measured in a fresh process, so none inherits another's heap. */
const CASES: Record<string, (file: string, sinkUrl: string) => Promise<unknown>> = {
  "PresignedStore.upload({ path })": (file, url) =>
    new PresignedStore({ sourceUrl: null, outputUrls: { video: url } }, { guard: { allowLoopback: true }, limits: UPLOAD_ONLY }).upload(
      "video",
      { path: file },
      "video/mp4",
    ),
  "BucketStore.upload({ path })": (file, url) =>
    new BucketStore(bucketClient(url), "bucket", {}, UPLOAD_ONLY).upload("big.bin", { path: file }, "video/mp4"),
  "bucket, file read whole (before)": async (file, url) =>
    bucketClient(url).putObject("bucket", "big.bin", await readFile(file), "video/mp4"),
  "fetch, stream body, default options": (file, url) =>
    fetch(url, {
      method: "PUT",
      body: Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
      headers: { "content-length": String(MIB * 1048576) },
      duplex: "half",
    } as RequestInit).then((r) => r.text()),
};

function bucketClient(sinkUrl: string): S3Client {
  const endpoint = new URL(sinkUrl).origin;
  return new S3Client({ endpoint, region: "auto", forcePathStyle: true, accessKeyId: "bench", secretAccessKey: "bench" }, 600_000);
}

const only = process.env["BENCH_CASE"];
if (only === undefined) {
  console.log(`upload of a ${MIB} MiB file over loopback (Node ${process.version})`);
  for (const name of Object.keys(CASES)) {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1] as string], {
      stdio: "inherit",
      env: { ...process.env, BENCH_CASE: name },
    });
    await new Promise((resolve) => child.once("exit", resolve));
  }
} else {
  const run = CASES[only];
  if (!run) throw new Error(`no bench case ${only}`);
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-presigned-"));
  const file = path.join(dir, "big.bin");
  const fh = await open(file, "w");
  const chunk = Buffer.alloc(1024 * 1024, 7);
  for (let i = 0; i < MIB; i++) await fh.write(chunk);
  await fh.close();
  const sink = await startSink();
  try {
    await measure(only, () => run(file, sink.url));
  } finally {
    sink.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
