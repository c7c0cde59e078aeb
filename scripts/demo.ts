import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import type { Job, ProgressEntry } from "../contracts/job";
import { S3Client } from "../contracts/s3-client";
import { apiCall, bootstrap } from "./lib/api-client";
import { LOCAL_ADMIN_SECRET, ROOT, startStack } from "./lib/stack";
import { makeSamples } from "./make-sample-media";

/**
 * The demo: a real transcription end to end on a fresh local stack. It builds a sample video
 * from public-domain LibriVox speech, uploads it to the local bucket, submits a job with the
 * `media-jobs` command-line tool and waits on it there (its live progress line), prints the
 * transcript, the output keys, the SRT (through the tool) and the time taken, then stops
 * everything it started. The later demos submit through the API and print each stage.
 *
 *   npm run demo            # transcription
 *   npm run demo -- clips          # then clip generation and thumbnails on the same transcript (a video with faces)
 *   npm run demo -- understanding  # then metadata, a summary, indexing and a few catalog searches of it
 *   npm run demo -- clips understanding   # both (the Quick start demo)
 *   npm run demo -- dubbing        # then a Spanish translation (Apertium) and a dubbed video of it
 */
const out = (s: string) => process.stdout.write(s + "\n");
const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);

const MODES = ["transcription", "clips", "understanding", "dubbing"] as const;
type Mode = (typeof MODES)[number];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  for (const a of args) if (!(MODES as readonly string[]).includes(a)) throw new Error(`unknown demo ${a} (known: ${MODES.join(", ")})`);
  // The transcription always runs: the other demos work on its transcript.
  const modes = new Set<Mode>(["transcription", ...(args as Mode[])]);
  out("media-jobs demo: building a sample video from public-domain speech (pocketsphinx-testdata)…");
  const samples = await makeSamples(path.join(ROOT, ".local/samples"), { faces: modes.has("clips") });
  const reference = (await readFile(samples.reference, "utf8")).trim();

  const stateDir = await mkdtemp(path.join(os.tmpdir(), "media-jobs-demo-"));
  out("starting the local stack (wrangler dev, local S3, one gpu-runner)…");
  const stack = await startStack({ apiPort: Number(process.env["MEDIA_JOBS_DEMO_PORT"] ?? 8797), stateDir, runners: 1 });
  try {
    const tenant = await bootstrap({
      apiBaseUrl: stack.apiBaseUrl,
      adminSecret: LOCAL_ADMIN_SECRET,
      name: "demo",
      plan: "pro",
      bucket: stack.bucket,
      s3: stack.s3,
    });
    out(`API ${stack.apiBaseUrl}  workspace ${tenant.workspaceId}  project ${tenant.projectId}`);

    const s3 = new S3Client({ ...tenant.s3, forcePathStyle: true });
    const sourceKey = "uploads/sense-and-sensibility.mp4";
    const size = (await stat(samples.video)).size;
    await s3.putObjectStream(
      tenant.bucket,
      sourceKey,
      Readable.toWeb(createReadStream(samples.video)) as ReadableStream<Uint8Array>,
      size,
      "video/mp4",
    );
    out(`uploaded s3://${tenant.bucket}/${sourceKey} (${(size / 1024).toFixed(0)} KiB)`);

    const consoleSession = await apiCall<{ secret: string }>(stack.apiBaseUrl, "POST", "/v1/console/sessions", tenant.workspaceKey, {
      projectId: tenant.projectId,
      userHandle: "demo",
    });
    const follow = (body: Record<string, unknown>) => followJob(stack.apiBaseUrl, tenant.projectKey, consoleSession.data.secret, body);
    // The transcription goes through the `media-jobs` command-line tool, as a user would run it.
    const cli = cliRunner(stack.apiBaseUrl, tenant.projectKey);
    const started = Date.now();
    const submitArgs = ["jobs", "submit", "--connection", tenant.connectionId, "--bucket", tenant.bucket, "--source-key", sourceKey];
    const created = JSON.parse(await cli([...submitArgs, "--language", "en", "--customer-job-ref", "demo-1", "--json"], "capture")) as Job;
    out(`→ ${created.jobId} (${created.status}, priority ${created.priority})`);
    const exitCode = Number(await cli(["jobs", "wait", created.jobId], "inherit"));
    const job = (await apiCall<Job>(stack.apiBaseUrl, "GET", `/v1/jobs/${created.jobId}`, tenant.projectKey)).data;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (exitCode !== 0 || job.status !== "completed") {
      out(`\njob ${job.status} (media-jobs exit code ${exitCode}): ${JSON.stringify(job.error ?? job.lastError)}`);
      process.exitCode = 1;
      return;
    }
    const summary = job.resultSummary as { textSourceId: string; segmentCount: number; durationSec: number };
    const transcript = (
      await apiCall<{
        engine: string;
        model: string;
        language: string;
        segments: Array<{ start: number; end: number; text: string; speaker?: string }>;
        speakers: Array<{ label: string; speakingSec: number }>;
        diarization: { engine: string; model: string } | null;
        outputKeys: Record<string, string>;
      }>(stack.apiBaseUrl, "GET", `/v1/transcriptions/${summary.textSourceId}?layers=segments`, tenant.projectKey)
    ).data;
    out(
      `\ncompleted in ${seconds} s: ${summary.segmentCount} segments, ${summary.durationSec.toFixed(1)} s of media, engine ${transcript.engine} (${transcript.model}), language ${transcript.language}\n`,
    );
    if (transcript.diarization)
      out(
        `speakers (${transcript.diarization.engine}, ${transcript.diarization.model}): ${transcript.speakers.map((sp) => `${sp.label} ${sp.speakingSec.toFixed(1)} s`).join(", ")}\n`,
      );
    out("transcript (first segments):");
    for (const s of transcript.segments.slice(0, 8))
      out(`  [${s.start.toFixed(2)} → ${s.end.toFixed(2)}]${s.speaker ? ` ${s.speaker}:` : ""} ${s.text}`);
    out(`\nreference (LibriVox):\n  ${reference.split("\n").slice(0, 3).join("\n  ")}`);
    out("\noutput files in the bucket:");
    for (const [kind, key] of Object.entries(transcript.outputKeys)) {
      const head = await s3.headObject(tenant.bucket, key);
      out(`  ${kind.padEnd(9)} s3://${tenant.bucket}/${key} (${head?.size ?? 0} bytes)`);
    }
    const srt = await cli(["transcripts", "get", summary.textSourceId, "--format", "srt"], "capture");
    out(
      `\nthe transcript as SRT (the same cues as ${transcript.outputKeys["srt"]}) begins:\n${srt
        .split("\n")
        .slice(0, 8)
        .map((l) => "  " + l)
        .join("\n")}`,
    );
    if (modes.has("clips")) await clipsDemo({ follow, s3, tenant, textSourceId: summary.textSourceId, apiBaseUrl: stack.apiBaseUrl });
    if (modes.has("understanding"))
      await understandingDemo({ follow, tenant, textSourceId: summary.textSourceId, apiBaseUrl: stack.apiBaseUrl });
    if (modes.has("dubbing")) await dubbingDemo({ follow, s3, tenant, textSourceId: summary.textSourceId, apiBaseUrl: stack.apiBaseUrl });
  } finally {
    out("\nstopping the local stack…");
    await stack.close();
    await rm(stateDir, { recursive: true, force: true });
  }
}

/**
 * Runs the `media-jobs` command-line tool (sdk/cli) against the demo's stack: "capture" answers
 * its stdout, "inherit" shows its output (the live progress line) and answers its exit code.
 */
function cliRunner(apiBaseUrl: string, key: string) {
  return (args: string[], mode: "capture" | "inherit"): Promise<string> => {
    out(`\n$ media-jobs ${args.join(" ")}`);
    const child = spawn(process.execPath, [path.join(ROOT, "sdk/cli/bin.mjs"), ...args], {
      env: { ...process.env, MEDIA_JOBS_URL: apiBaseUrl, MEDIA_JOBS_KEY: key },
      stdio: ["ignore", mode === "capture" ? "pipe" : "inherit", "inherit"],
    });
    let stdout = "";
    child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
    return new Promise((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => {
        if (mode === "inherit") return resolve(String(code ?? 1));
        if (code !== 0) return reject(new Error(`media-jobs ${args.join(" ")} exited ${code}`));
        resolve(stdout);
      });
    });
  };
}

/** Submits a job, prints its stages as they happen, and returns it once it has ended. */
async function followJob(apiBaseUrl: string, projectKey: string, consoleKey: string, body: Record<string, unknown>): Promise<Job> {
  const started = Date.now();
  const created = await apiCall<Job>(apiBaseUrl, "POST", "/v1/jobs", projectKey, body);
  const jobId = created.data.jobId;
  out(`\nPOST /v1/jobs (${String(body["serviceType"])}) → ${jobId} (${created.data.status}, priority ${created.data.priority})`);
  let shown = 0;
  let job = created.data;
  while (!["completed", "failed", "cancelled"].includes(job.status)) {
    await new Promise((r) => setTimeout(r, 300));
    job = (await apiCall<Job>(apiBaseUrl, "GET", `/v1/jobs/${jobId}`, projectKey)).data;
    const progress = (await apiCall<{ progress: ProgressEntry[] }>(apiBaseUrl, "GET", `/v1/jobs/${jobId}/progress`, consoleKey)).data
      .progress;
    for (const p of progress.slice(shown)) {
      const secs = ((Date.parse(p.at) - started) / 1000).toFixed(1).padStart(6);
      const extra = p.error ? ` ${p.error.code}: ${p.error.message}` : p.details ? dim(" " + JSON.stringify(p.details).slice(0, 90)) : "";
      out(`  ${secs}s  ${p.stage.padEnd(22)} ${p.event}${extra}`);
    }
    shown = progress.length;
  }
  if (job.status !== "completed") out(`\njob ${job.status}: ${JSON.stringify(job.error ?? job.lastError)}`);
  return job;
}

interface ClipRecord {
  clipGenerationId: string;
  layout: string;
  layoutReason: string;
  category: string | null;
  categoryConfidence: number | null;
  engines: Record<string, unknown>;
  clips: Array<{
    index: number;
    start: number;
    end: number;
    title: string;
    score: number;
    videoKey: string;
    posterKey: string;
    width: number;
    height: number;
  }>;
}

/** Clip generation on the demo's transcript; the clips are also copied to .local/demo-clips/ to watch. */
async function clipsDemo(a: {
  follow: (body: Record<string, unknown>) => Promise<Job>;
  s3: S3Client;
  tenant: { bucket: string; projectKey: string };
  textSourceId: string;
  apiBaseUrl: string;
}): Promise<void> {
  const started = Date.now();
  const job = await a.follow({
    serviceType: "clip_generation",
    input: { textSourceId: a.textSourceId, options: { maxClips: 2, layout: "vertical_9_16" } },
  });
  if (job.status !== "completed") {
    process.exitCode = 1;
    return;
  }
  const id = String((job.resultSummary as { clipGenerationId: string }).clipGenerationId);
  const rec = (await apiCall<ClipRecord>(a.apiBaseUrl, "GET", `/v1/clip-generations/${id}`, a.tenant.projectKey)).data;
  out(`\nclips done in ${((Date.now() - started) / 1000).toFixed(1)} s: GET /v1/clip-generations/${id}`);
  out(`  layout ${rec.layout} (${rec.layoutReason}); category ${rec.category} (confidence ${rec.categoryConfidence})`);
  out(`  engines ${JSON.stringify(rec.engines)}`);
  const dir = path.join(ROOT, ".local/demo-clips");
  await mkdir(dir, { recursive: true });
  for (const c of rec.clips) {
    out(`  #${c.index + 1} ${c.start.toFixed(2)}–${c.end.toFixed(2)} s, score ${c.score}, ${c.width}×${c.height}: "${c.title}"`);
    for (const key of [c.videoKey, c.posterKey]) {
      const bytes = new Uint8Array(await (await a.s3.getObject(a.tenant.bucket, key)).arrayBuffer());
      await writeFile(path.join(dir, path.basename(key)), bytes);
      out(`     s3://${a.tenant.bucket}/${key} (${bytes.length} bytes)`);
    }
  }
  out(`  copies in ${path.relative(process.cwd(), dir)}/`);
  await thumbnailsDemo({ ...a, dir });
}

interface ThumbnailSet {
  thumbnailCount: number;
  thumbnails: Array<{
    kind: string;
    key: string;
    width: number;
    height: number;
    engine: string;
    engineKind: string;
    frameTimeSec: number | null;
    title: string | null;
  }>;
}

/** Thumbnails on the same transcript: two covers and three frame picks, copied beside the clips. */
async function thumbnailsDemo(a: Parameters<typeof clipsDemo>[0] & { dir: string }): Promise<void> {
  const started = Date.now();
  const job = await a.follow({
    serviceType: "thumbnail",
    input: { textSourceId: a.textSourceId, options: { thumbnailCount: 2, nonAiThumbnailCount: 3 } },
  });
  if (job.status !== "completed") {
    process.exitCode = 1;
    return;
  }
  const set = (await apiCall<ThumbnailSet>(a.apiBaseUrl, "GET", `/v1/thumbnails/${a.textSourceId}`, a.tenant.projectKey)).data;
  out(`\nthumbnails done in ${((Date.now() - started) / 1000).toFixed(1)} s: GET /v1/thumbnails/${a.textSourceId}`);
  out(`  resultSummary ${JSON.stringify(job.resultSummary)}`);
  for (const t of set.thumbnails) {
    const bytes = new Uint8Array(await (await a.s3.getObject(a.tenant.bucket, t.key)).arrayBuffer());
    await writeFile(path.join(a.dir, `thumbnail-${path.basename(t.key)}`), bytes);
    const at = t.frameTimeSec === null ? "" : ` from ${t.frameTimeSec.toFixed(1)} s`;
    out(`  ${t.kind.padEnd(5)} ${t.width}×${t.height} by ${t.engine} (${t.engineKind})${at}${t.title ? `: "${t.title}"` : ""}`);
    out(`     s3://${a.tenant.bucket}/${t.key} (${bytes.length} bytes)`);
  }
}

interface MetadataRecord {
  metadataId: string;
  title: string;
  description: string;
  keywords: string[];
  categories: Array<{ id: string; name: string; tierPath: string[]; confidence: number }>;
  chapters: Array<{ start: number; title: string }>;
  generatedBy: { engine: string; model: string; kind: string };
}

interface SummaryRecord {
  shortSynopsis: string;
  seoDescriptions: string[];
  socialHooks: string[];
  keywords: string[];
  generated: { engine: string; model: string; kind: string };
}

interface SearchAnswer {
  results: Array<{ score: number; start: number; end: number; markedText: string; denseRank: number | null; sparseRank: number | null }>;
}

/** Metadata, a summary, indexing and three searches (hybrid, dense, sparse) of the demo's transcript. */
async function understandingDemo(a: {
  follow: (body: Record<string, unknown>) => Promise<Job>;
  tenant: { projectKey: string };
  textSourceId: string;
  apiBaseUrl: string;
}): Promise<void> {
  const get = async <T>(p: string) => (await apiCall<T>(a.apiBaseUrl, "GET", p, a.tenant.projectKey)).data;
  const ended = (job: Job) => {
    if (job.status !== "completed") process.exitCode = 1;
    return job.status === "completed";
  };
  let started = Date.now();
  if (!ended(await a.follow({ serviceType: "metadata", input: { textSourceId: a.textSourceId } }))) return;
  const md = await get<MetadataRecord>(`/v1/transcriptions/${a.textSourceId}/metadata`);
  out(`
metadata in ${((Date.now() - started) / 1000).toFixed(1)} s by ${md.generatedBy.engine} (${md.generatedBy.kind}, ${md.generatedBy.model}):`);
  out(`  title        ${md.title}`);
  out(`  description  ${md.description}`);
  out(`  keywords     ${md.keywords.join(", ")}`);
  out(
    `  IAB          ${md.categories.map((c) => `${c.id} ${c.tierPath.join(" > ")} (${c.confidence})`).join("; ") || "(none above the threshold)"}`,
  );
  for (const c of md.chapters) out(`  chapter ${c.start.toFixed(1).padStart(6)} s  ${c.title}`);

  started = Date.now();
  const sum = await a.follow({ serviceType: "summarization", input: { textSourceJobId: a.textSourceId } });
  if (!ended(sum)) return;
  const rec = await get<SummaryRecord>(`/v1/summarizations/${String(sum.resultSummary?.["summarizationId"])}`);
  out(`
summary in ${((Date.now() - started) / 1000).toFixed(1)} s by ${rec.generated.engine}:`);
  out(`  synopsis  ${rec.shortSynopsis}`);
  for (const h of rec.socialHooks) out(`  hook      ${h}`);
  out(`  keywords  ${rec.keywords.join(", ")}`);

  started = Date.now();
  const idx = await a.follow({ serviceType: "indexer", input: { textSourceIds: [a.textSourceId] } });
  if (!ended(idx)) return;
  out(`
indexed in ${((Date.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(idx.resultSummary)}`);
  const query = md.keywords[0] ?? "love";
  for (const mode of ["hybrid", "dense", "sparse"] as const) {
    const t0 = Date.now();
    const res = await apiCall<SearchAnswer>(a.apiBaseUrl, "POST", "/v1/catalog/search", a.tenant.projectKey, { query, mode, limit: 3 });
    out(`
POST /v1/catalog/search {"query": "${query}", "mode": "${mode}"} → ${res.data.results.length} hits in ${Date.now() - t0} ms`);
    for (const h of res.data.results)
      out(`  ${h.start.toFixed(1).padStart(6)}–${h.end.toFixed(1)} s  score ${h.score.toFixed(4)}  ${h.markedText.slice(0, 110)}`);
  }
}

interface TranslationRecord {
  translationId: string;
  translationBackend: string;
  model: string;
  outputKeys: { srt: string; vtt: string };
  segments: Array<{ start: number; end: number; text: string; sourceText: string }>;
}

interface DubbingRecord {
  artifacts: Record<string, string>;
  speakers: Array<{
    label: string;
    status: string;
    voiceId: string | null;
    voiceSource: string | null;
    voiceKind: string | null;
    speechSec: number;
  }>;
  segments: Array<{ id: number; speaker: string; stretch: number | null; flags: string[]; speech: string }>;
  engines: Record<string, { engine?: string; backend?: string; model?: string; method?: string } | null>;
  sync: { maxStartOffsetSec: number; maxOverrunRatio: number; durationDeltaSec: number };
  loudness: { integratedLufs: number | null; truePeakDbtp: number | null };
  durationSec: number;
}

/** A Spanish translation of the demo's transcript, then a dubbed video of it; prints the records and the bucket's files. */
async function dubbingDemo(a: {
  follow: (body: Record<string, unknown>) => Promise<Job>;
  s3: S3Client;
  tenant: { projectKey: string; bucket: string };
  textSourceId: string;
  apiBaseUrl: string;
}): Promise<void> {
  const get = async <T>(p: string) => (await apiCall<T>(a.apiBaseUrl, "GET", p, a.tenant.projectKey)).data;
  let started = Date.now();
  const trl = await a.follow({ serviceType: "translation", input: { textSourceId: a.textSourceId, targetLanguage: "es" } });
  if (trl.status !== "completed") return void (process.exitCode = 1);
  const translation = await get<TranslationRecord>(`/v1/translations/${String(trl.resultSummary?.["translationId"])}`);
  out(`
translation in ${((Date.now() - started) / 1000).toFixed(1)} s by ${translation.translationBackend} (${translation.model}), ${translation.segments.length} segments, timings kept:`);
  for (const s of translation.segments.slice(0, 4)) out(`  [${s.start.toFixed(2)} → ${s.end.toFixed(2)}] ${s.text}`);
  out(`  subtitles  s3://${a.tenant.bucket}/${translation.outputKeys.srt}`);

  started = Date.now();
  const dub = await a.follow({
    serviceType: "dubbing",
    input: { transcriptionId: a.textSourceId, targetLanguage: "es", translationId: translation.translationId },
  });
  if (dub.status !== "completed") return void (process.exitCode = 1);
  const seconds = (Date.now() - started) / 1000;
  const rec = await get<DubbingRecord>(`/v1/dubbings/${String(dub.resultSummary?.["dubbingId"])}`);
  const spoken = rec.segments.filter((s) => s.speech === "spoken");
  out(`
dubbing in ${seconds.toFixed(1)} s for ${rec.durationSec.toFixed(1)} s of video (${((seconds / rec.durationSec) * 60).toFixed(1)} s per minute of source):`);
  for (const [part, e] of Object.entries(rec.engines))
    if (e) out(`  ${part.padEnd(12)} ${e.engine ?? e.backend} ${e.model ?? e.method ?? ""}`);
  for (const sp of rec.speakers)
    out(
      `  ${sp.label}  ${sp.status}  voice ${sp.voiceId ?? "none"} (${sp.voiceSource ?? "-"}, ${sp.voiceKind ?? "-"})  ${sp.speechSec.toFixed(1)} s of speech`,
    );
  out(
    `  ${spoken.length}/${rec.segments.length} segments spoken; compressed ${spoken.filter((s) => (s.stretch ?? 1) < 1).length}, rate raised ${spoken.filter((s) => s.flags.includes("rate_raised")).length}, trimmed ${spoken.filter((s) => s.flags.includes("trimmed")).length}`,
  );
  out(
    `  sync: starts within ${(rec.sync.maxStartOffsetSec * 1000).toFixed(0)} ms, worst overrun ${(rec.sync.maxOverrunRatio * 100).toFixed(1)} % of a slot, duration off by ${rec.sync.durationDeltaSec.toFixed(3)} s`,
  );
  out(`  loudness: ${rec.loudness.integratedLufs ?? "?"} LUFS integrated, true peak ${rec.loudness.truePeakDbtp ?? "?"} dBTP`);
  out("\ndubbing artifacts in the bucket:");
  for (const [kind, key] of Object.entries(rec.artifacts)) {
    const head = await a.s3.headObject(a.tenant.bucket, key);
    out(`  ${kind.padEnd(10)} s3://${a.tenant.bucket}/${key} (${head?.size ?? 0} bytes)`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
