import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { PresignedStore } from "../gpu-runner/object-store";

/**
 * Memory of a presigned upload: the runner's PresignedStore PUTs a file of BENCH_MIB MiB to a sink
 * server in another process (so only the sender's memory is measured), beside a plain `fetch` of the
 * same stream without `redirect: "error"` / `window: null`, which undici tees and buffers whole.
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

const dir = await mkdtemp(path.join(os.tmpdir(), "bench-presigned-"));
const file = path.join(dir, "big.bin");
const fh = await open(file, "w");
const chunk = Buffer.alloc(1024 * 1024, 7);
for (let i = 0; i < MIB; i++) await fh.write(chunk);
await fh.close();
const sink = await startSink();
try {
  console.log(`upload of a ${MIB} MiB file over loopback (Node ${process.version})`);
  const store = new PresignedStore({ sourceUrl: null, outputUrls: { video: sink.url } }, { guard: { allowLoopback: true } });
  await measure("PresignedStore.upload({ path })", () => store.upload("video", { path: file }, "video/mp4"));
  await measure("fetch, stream body, default options", () =>
    fetch(sink.url, {
      method: "PUT",
      body: Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
      headers: { "content-length": String(MIB * 1048576) },
      duplex: "half",
    } as RequestInit).then((r) => r.text()),
  );
} finally {
  sink.stop();
  await rm(dir, { recursive: true, force: true });
}
