import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Job } from "../contracts/job";
import type { LeasedTask } from "../contracts/runner-protocol";
import { apiCall } from "../scripts/lib/api-client";
import { ROOT, type Stack } from "../scripts/lib/stack";
import { makeSamples } from "../scripts/make-sample-media";
import { ISOLATE_HEADER, parseQueryCount, queryCountDelta, REQUEST_HEADER, type D1QueryCount } from "../worker/db/query-count-header";
import {
  d1Totals,
  diffStores,
  mediaHourFit,
  rowsWritten,
  snapshotStores,
  type StoreDiff,
  type StoreSnapshot,
  type TableDiff,
} from "./capacity-lib";
import { openTenant, type BenchTenant } from "./catalog-lib";
import { fmt, machineInfo, sleep, table, withFreshStack } from "./lib";

/**
 * The capacity model's inputs (docs/capacity.md): on a fresh local stack with one real gpu-runner
 * and the local engines, every service type runs on real media, and for each job the bench prints
 * what it left in every store — D1 rows written and bytes stored per table, Durable Object storage
 * per class, the customer's bucket, any R2 bucket wrangler emulates — by diffing the stack's state
 * dir before and after the job (bench/capacity-lib.ts says how bytes and rows are counted). Then the
 * D1 statements each hot route makes, counted by the Worker itself (worker/db/query-count.ts,
 * switched on with the local-only var COUNT_D1_QUERIES).
 *
 * Per media-hour: the services run on two lengths of the same speech (the sample video and a
 * longer loop of it); each figure is fitted as fixed-per-job + per-second, and a media-hour is the
 * fixed part plus 3,600 times the per-second part (one-hour jobs).
 *
 *   npx tsx bench/capacity.ts [--long-minutes 3] [--port 18710] [--s3-port 18711]
 *
 * Baselines in the same run: the bare route's and /healthz's statement counts (0: what the counter
 * adds by itself), the source media's own bytes beside what the jobs write to the bucket, and the
 * stores' sizes right after the tenant was made.
 */
const { values: args } = parseArgs({
  options: {
    "long-minutes": { type: "string", default: "3" },
    port: { type: "string", default: process.env["BENCH_API_PORT"] ?? "18710" },
    "s3-port": { type: "string", default: process.env["BENCH_S3_PORT"] ?? "18711" },
  },
});
const LONG_MINUTES = Math.max(1, Number(args["long-minutes"]));
const POLL_MS = 500;

/** The services whose footprint grows with the media; voice creation measures a sample, once. */
const MEDIA_SERVICES = [
  "transcription",
  "metadata",
  "summarization",
  "indexer",
  "translation",
  "thumbnail",
  "clip_generation",
  "dubbing",
] as const;
/** The issue's reference pipeline: a media-hour transcribed, indexed, translated, described and summarised. */
const PIPELINE = ["transcription", "indexer", "translation", "metadata", "summarization"] as const;

interface Answer<T> {
  status: number;
  /** The answer body's size. */
  bytes: number;
  data: T;
  request: D1QueryCount | null;
  isolate: D1QueryCount | null;
}

interface Measured {
  service: string;
  media: string;
  mediaSec: number;
  jobId: string;
  diff: StoreDiff;
  /** Every statement the isolate counted from create to completion, less the bench's own polls. */
  queries: D1QueryCount;
  wallMs: number;
}

function mediaSeconds(file: string): number {
  const out = execFileSync("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file]).toString();
  return Number(out.trim());
}

const kb = (bytes: number) => fmt(bytes / 1024, 1);
const ZERO: D1QueryCount = { statements: 0, calls: 0, rowsRead: 0, rowsWritten: 0 };
const sub = (a: D1QueryCount, b: D1QueryCount) => queryCountDelta(b, a);

async function main(): Promise<void> {
  console.log(machineInfo());
  const samples = await makeSamples(path.join(ROOT, ".local/samples"), { minutes: LONG_MINUTES });
  const media = [
    { name: "sample", file: samples.video },
    { name: `long-${LONG_MINUTES}`, file: samples.long! },
  ].map((m) => ({ ...m, seconds: mediaSeconds(m.file), key: `capacity/${m.name}.mp4` }));

  await withFreshStack(
    { apiPort: Number(args.port), s3Port: Number(args["s3-port"]), runners: 1, vars: { COUNT_D1_QUERIES: "true" } },
    async (stack) => {
      const t = await openTenant(stack, "capacity");
      const base = stack.apiBaseUrl;
      const call = async <T>(method: string, p: string, key: string, body?: unknown): Promise<Answer<T>> => {
        const res = await fetch(`${base}${p}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        const json = JSON.parse(text) as { data: T };
        return {
          status: res.status,
          bytes: Buffer.byteLength(text),
          data: json.data,
          request: parseQueryCount(res.headers.get(REQUEST_HEADER)),
          isolate: parseQueryCount(res.headers.get(ISOLATE_HEADER)),
        };
      };
      const isolateNow = async (): Promise<D1QueryCount> => {
        const res = await fetch(`${base}/healthz`);
        await res.arrayBuffer();
        const c = parseQueryCount(res.headers.get(ISOLATE_HEADER));
        if (!c) throw new Error("the Worker answers no D1 query count: is COUNT_D1_QUERIES set?");
        return c;
      };
      const key = t.tenant.projectKey;
      const snapshot = (): StoreSnapshot => snapshotStores(stack.stateDir);
      const empty = snapshot();

      const measured: Measured[] = [];
      const run = async (service: string, m: (typeof media)[number], input: Record<string, unknown>): Promise<Job> => {
        const before = snapshot();
        const q0 = await isolateNow();
        const started = performance.now();
        const created = await call<Job>("POST", "/v1/jobs", key, { serviceType: service, input });
        if (created.status >= 300) throw new Error(`${service}: create answered ${created.status}: ${JSON.stringify(created.data)}`);
        let polls = ZERO;
        let job = created.data;
        while (!["completed", "failed", "cancelled"].includes(job.status)) {
          await sleep(POLL_MS);
          const a = await call<Job>("GET", `/v1/jobs/${job.jobId}`, key);
          polls = sumCounts(polls, a.request ?? ZERO);
          job = a.data;
        }
        const wallMs = performance.now() - started;
        if (job.status !== "completed")
          throw new Error(`${service} job ${job.jobId} ${job.status}: ${JSON.stringify(job.error ?? job.lastError)}`);
        await sleep(1000); // the job's webhook events and the JobDO's last writes settle
        const q1 = await isolateNow();
        measured.push({
          service,
          media: m.name,
          mediaSec: m.seconds,
          jobId: job.jobId,
          diff: diffStores(before, snapshot()),
          queries: sub(queryCountDelta(q0, q1), polls),
          wallMs,
        });
        console.error(`  ${service} on ${m.name}: ${fmt(wallMs / 1000, 1)} s`);
        return job;
      };

      let lastTxt = "";
      let lastJob = "";
      for (const m of media) {
        await t.s3.putObject(t.tenant.bucket, m.key, await readFile(m.file), "video/mp4");
        const source = { connectionId: t.tenant.connectionId, bucket: t.tenant.bucket, sourceKey: m.key };
        const tr = await run("transcription", m, { sourceType: "s3_direct", ...source, options: { language: "en" } });
        const txt = String(tr.resultSummary?.["textSourceId"] ?? tr.input["textSourceId"]);
        await run("metadata", m, { textSourceId: txt });
        await run("summarization", m, { textSourceJobId: txt });
        await run("indexer", m, { textSourceIds: [txt] });
        const trl = await run("translation", m, { textSourceId: txt, targetLanguage: "es" });
        await run("thumbnail", m, { textSourceId: txt });
        await run("clip_generation", m, { textSourceId: txt, options: { maxClips: 3 } });
        await run("dubbing", m, {
          transcriptionId: txt,
          targetLanguage: "es",
          translationId: String(trl.resultSummary?.["translationId"]),
        });
        lastTxt = txt;
        lastJob = tr.jobId;
      }
      const sample = media[0]!;
      await run("voice_creation", sample, {
        name: "capacity voice",
        language: "en",
        connectionId: t.tenant.connectionId,
        bucket: t.tenant.bucket,
        sourceKey: sample.key,
      });

      // Hot routes on a quiet stack: no runner polling, no job running.
      await stack.stopRunners();
      await sleep(1000);
      const routes = await measureRoutes(stack, t, call, isolateNow, { txt: lastTxt, jobId: lastJob, sourceKey: sample.key });
      const totals = snapshot();

      report({ media, measured, routes, empty, totals, stack });
    },
  );
}

function sumCounts(a: D1QueryCount, b: D1QueryCount): D1QueryCount {
  return {
    statements: a.statements + b.statements,
    calls: a.calls + b.calls,
    rowsRead: a.rowsRead + b.rowsRead,
    rowsWritten: a.rowsWritten + b.rowsWritten,
  };
}

interface RouteCount {
  route: string;
  request: D1QueryCount;
  /** The isolate's count between the previous response (a /healthz) and this one: the Worker's, the JobDO's and any consumer's. */
  isolate: D1QueryCount;
  status: number;
  bytes: number;
}

async function measureRoutes(
  stack: Stack,
  t: BenchTenant,
  call: <T>(method: string, p: string, key: string, body?: unknown) => Promise<Answer<T>>,
  isolateNow: () => Promise<D1QueryCount>,
  ids: { txt: string; jobId: string; sourceKey: string },
): Promise<RouteCount[]> {
  const key = t.tenant.projectKey;
  const consoleKey = (
    await apiCall<{ secret: string }>(stack.apiBaseUrl, "POST", "/v1/console/sessions", t.tenant.workspaceKey, {
      projectId: t.tenant.projectId,
      userHandle: "capacity",
    })
  ).data.secret;
  const lease = { runnerId: "capacity-bench", handlers: ["transcription"], waitSeconds: 0 };
  let leased: LeasedTask | undefined;
  const routes: Array<[string, () => Promise<Answer<unknown>>]> = [
    ["baseline: GET /__bench/bare (before the counter)", () => bare(stack)],
    ["baseline: GET /healthz", () => call("GET", "/healthz", key)],
    [
      "POST /v1/jobs (transcription, s3_direct)",
      () =>
        call("POST", "/v1/jobs", key, {
          serviceType: "transcription",
          input: { sourceType: "s3_direct", connectionId: t.tenant.connectionId, bucket: t.tenant.bucket, sourceKey: ids.sourceKey },
        }),
    ],
    // The runner lane, as a runner sees it: the three creates above left three tasks in the lane.
    [
      "POST /runner/v1/lease (a task available)",
      async () => {
        const a = await call<{ task: LeasedTask | null }>("POST", "/runner/v1/lease", stack.runnerToken, lease);
        if (a.data.task) leased = a.data.task;
        return a;
      },
    ],
    ["POST /runner/v1/lease (lane empty, no wait)", () => call("POST", "/runner/v1/lease", stack.runnerToken, lease)],
    [
      "POST /runner/v1/tasks/{id}/heartbeat",
      () => {
        if (!leased) throw new Error("no task was leased to heartbeat");
        return call("POST", `/runner/v1/tasks/${leased.taskId}/heartbeat`, stack.runnerToken, { leaseToken: leased.leaseToken });
      },
    ],
    ["GET /v1/jobs/{id}", () => call("GET", `/v1/jobs/${ids.jobId}`, key)],
    ["GET /v1/jobs (first page)", () => call("GET", "/v1/jobs", key)],
    ["GET /v1/jobs/{id}/progress (console session)", () => call("GET", `/v1/jobs/${ids.jobId}/progress`, consoleKey)],
    ["GET /v1/transcriptions/{id} (all layers)", () => call("GET", `/v1/transcriptions/${ids.txt}`, key)],
    ["GET /v1/transcriptions/{id}?layers=segments", () => call("GET", `/v1/transcriptions/${ids.txt}?layers=segments`, key)],
    [
      "POST /v1/catalog/search (hybrid)",
      () => call("POST", "/v1/catalog/search", key, { query: "the sisters and their mother", mode: "hybrid" }),
    ],
    [
      "POST /v1/catalog/search (sparse)",
      () => call("POST", "/v1/catalog/search", key, { query: "the sisters and their mother", mode: "sparse" }),
    ],
  ];
  const out: RouteCount[] = [];
  for (const [route, go] of routes) {
    // Three times; the last is reported (the first may fill an isolate cache), all are checked to be answered.
    let last: RouteCount | undefined;
    for (let i = 0; i < 3; i++) {
      const before = await isolateNow();
      const a = await go();
      if (a.status >= 400) throw new Error(`${route} answered ${a.status}: ${JSON.stringify(a.data)}`);
      last = {
        route,
        request: a.request ?? ZERO,
        isolate: a.isolate ? queryCountDelta(before, a.isolate) : ZERO,
        status: a.status,
        bytes: a.bytes,
      };
    }
    out.push(last!);
  }
  return out;
}

/** The bare route answers text, not JSON. */
async function bare(stack: Stack): Promise<Answer<unknown>> {
  const res = await fetch(`${stack.apiBaseUrl}/__bench/bare`);
  const text = await res.text();
  return {
    status: res.status,
    bytes: Buffer.byteLength(text),
    data: text,
    request: parseQueryCount(res.headers.get(REQUEST_HEADER)),
    isolate: null,
  };
}

interface Figures {
  rows: number;
  d1Bytes: number;
  doBytes: number;
  bucketBytes: number;
  bucketObjects: number;
  r2Bytes: number;
  statements: number;
  rowsWrittenMeta: number;
}

function figures(m: Measured): Figures {
  const d = d1Totals(m.diff);
  const sum = <T>(xs: Iterable<T>, f: (x: T) => number) => [...xs].reduce((n, x) => n + f(x), 0);
  return {
    rows: rowsWritten(d),
    d1Bytes: d.payload,
    doBytes: sum(m.diff.durableObjects.values(), (x) => x.payload),
    bucketBytes: sum(m.diff.buckets.values(), (x) => x.bytes),
    bucketObjects: sum(m.diff.buckets.values(), (x) => x.objects),
    r2Bytes: sum(m.diff.r2.values(), (x) => x.bytes),
    statements: m.queries.statements,
    rowsWrittenMeta: m.queries.rowsWritten,
  };
}

function report(r: {
  media: Array<{ name: string; seconds: number; file: string }>;
  measured: Measured[];
  routes: RouteCount[];
  empty: StoreSnapshot;
  totals: StoreSnapshot;
  stack: Stack;
}): void {
  const { media, measured, routes } = r;
  console.log(`command: npx tsx bench/capacity.ts --long-minutes ${LONG_MINUTES}`);
  console.log(
    `media: ${media.map((m) => `${m.name} ${fmt(m.seconds, 1)} s`).join(", ")} (the LibriVox sample speech over test cards, scripts/make-sample-media.ts); ` +
      `one real gpu-runner, local engines, enterprise tenant; thumbnail with the plan's defaults, clip_generation maxClips 3, translation and dubbing into es\n`,
  );
  console.log(
    "Method: each job runs alone; the stack's state dir is snapshotted before and after it. D1 bytes = SQLite dbstat payload (cell bytes of rows, index entries and FTS5 shadow tables; page overhead and free space not counted), " +
      "D1 rows written = rows that differ between the snapshots (inserted + updated + deleted; a row rewritten many times counts once). DO bytes = dbstat payload of every Durable Object's SQLite file, per class. " +
      "Bucket = objects the job added to the customer's bucket (local S3 files). R2 = blob files of any R2 bucket wrangler emulates. D1 statements = every statement the Worker isolate counted (Worker, JobDO, consumers, runner routes) from create to completion, less the bench's own status polls; rows_written(meta) = D1's own meta figure over the run/all/batch results among them.\n",
  );

  // 1. Per job.
  const doClasses = [...new Set(measured.flatMap((m) => [...m.diff.durableObjects.keys()]))].sort();
  const r2Names = [...new Set(measured.flatMap((m) => [...m.diff.r2.keys()]))].sort();
  console.log("Per job");
  console.log(
    table(
      [
        "service",
        "media",
        "D1 rows written",
        "D1 KB",
        ...doClasses.map((c) => `DO ${c.replace(/^media-jobs-/, "")} KB`),
        ...r2Names.map((n) => `R2 ${n} KB`),
        "bucket objects",
        "bucket KB",
        "D1 statements",
        "rows_written (meta)",
        "wall s",
      ],
      measured.map((m) => {
        const f = figures(m);
        const d = d1Totals(m.diff);
        return [
          m.service,
          m.media,
          `${f.rows} (+${d.inserted} ~${d.updated} -${d.deleted})`,
          kb(f.d1Bytes),
          ...doClasses.map((c) => kb(m.diff.durableObjects.get(c)?.payload ?? 0)),
          ...r2Names.map((n) => kb(m.diff.r2.get(n)?.bytes ?? 0)),
          String(f.bucketObjects),
          kb(f.bucketBytes),
          String(f.statements),
          String(f.rowsWrittenMeta),
          fmt(m.wallMs / 1000, 1),
        ];
      }),
    ),
  );

  // 2. Per table, per service: the fit.
  const [short, long] = media as [(typeof media)[number], (typeof media)[number]];
  const byService = (service: string, name: string) => measured.find((m) => m.service === service && m.media === name);
  const fitOf = (service: string, f: (m: Measured) => number) => {
    const a = byService(service, short.name);
    const b = byService(service, long.name);
    if (!a || !b) return null;
    return mediaHourFit([
      { x: a.mediaSec, y: f(a) },
      { x: b.mediaSec, y: f(b) },
    ]);
  };
  console.log(
    `\nD1 per table: bytes (dbstat payload) and rows written, per job on each media, and fitted per media-hour (fixed + 3600 × per-second)`,
  );
  const tableRows: string[][] = [];
  for (const service of MEDIA_SERVICES) {
    const tables = [...new Set(measured.filter((m) => m.service === service).flatMap((m) => [...m.diff.d1.keys()]))].sort();
    for (const name of tables) {
      const get = (m: Measured | undefined): TableDiff | undefined => m?.diff.d1.get(name);
      const a = get(byService(service, short.name));
      const b = get(byService(service, long.name));
      const bytes = fitOf(service, (m) => get(m)?.payload ?? 0);
      const rows = fitOf(service, (m) => {
        const d = get(m);
        return d ? rowsWritten(d) : 0;
      });
      tableRows.push([
        service,
        name,
        `${a ? rowsWritten(a) : 0} / ${b ? rowsWritten(b) : 0}`,
        `${kb(a?.payload ?? 0)} / ${kb(b?.payload ?? 0)}`,
        bytes ? fmt(bytes.fixed, 0) : "-",
        bytes ? fmt(bytes.slope, 1) : "-",
        bytes ? `${kb(bytes.perHour)}${bytes.flat ? " (flat)" : ""}` : "-",
        rows ? `${fmt(rows.perHour, 0)}${rows.flat ? " (flat)" : ""}` : "-",
      ]);
    }
  }
  console.log(
    table(
      [
        "service",
        "table",
        `rows ${short.name} / ${long.name}`,
        `KB ${short.name} / ${long.name}`,
        "fixed B/job",
        "B per media-s",
        "KB per media-hour",
        "rows per media-hour",
      ],
      tableRows,
    ),
  );

  // 3. Per media-hour per service, all stores.
  const metrics: Array<[string, (f: Figures) => number, (n: number) => string]> = [
    ["D1 KB", (f) => f.d1Bytes, kb],
    ["D1 rows written", (f) => f.rows, (n) => fmt(n, 0)],
    ["DO KB", (f) => f.doBytes, kb],
    ["bucket KB", (f) => f.bucketBytes, kb],
    ["R2 KB", (f) => f.r2Bytes, kb],
    ["D1 statements", (f) => f.statements, (n) => fmt(n, 0)],
  ];
  console.log(
    `\nPer media-hour (one-hour jobs: fixed per job + 3600 × per media-second, the line through ${short.name} and ${long.name}; "flat": the figure fell with length, so it is read as not growing with it and given as the mean per job)`,
  );
  const hourRows: string[][] = [];
  const pipeline = metrics.map(() => 0);
  for (const service of MEDIA_SERVICES) {
    const cells = metrics.map(([, get, show], i) => {
      const f = fitOf(service, (m) => get(figures(m)));
      if (!f) return "-";
      if ((PIPELINE as readonly string[]).includes(service)) pipeline[i]! += f.perHour;
      if (f.flat) return `${show(f.perHour)} (flat)`;
      return `${show(f.perHour)} (${show(f.fixed)} + ${fmt(f.slope * (show === kb ? 1 / 1024 : 1), 3)}/s)`;
    });
    hourRows.push([service, ...cells]);
  }
  hourRows.push([`pipeline: ${PIPELINE.join(" + ")}`, ...metrics.map(([, , show], i) => show(pipeline[i]!))]);
  console.log(table(["service", ...metrics.map(([n]) => `${n} per media-hour (fixed + per s)`)], hourRows));
  const voice = measured.find((m) => m.service === "voice_creation");
  if (voice) {
    const f = figures(voice);
    console.log(
      `voice_creation (per job, a ${fmt(voice.mediaSec, 1)} s sample; not per media-hour): D1 ${kb(f.d1Bytes)} KB, ${f.rows} rows; DO ${kb(f.doBytes)} KB; bucket ${kb(f.bucketBytes)} KB; ${f.statements} D1 statements`,
    );
  }
  const jobRow = fitOf("transcription", (m) => m.diff.d1.get("jobs")?.payload ?? 0);
  if (jobRow) console.log(`a job row (jobs table, transcription): ${fmt(jobRow.perHour, 0)} B at one media-hour`);

  // 4. Hot routes.
  console.log(
    `\nD1 statements per hot route (the last of 3 calls; no runner, no job running). "request" = the Worker's own statements for the request; "all" = everything the isolate counted between the previous response and this one (the JobDO's included)`,
  );
  console.log(
    table(
      [
        "route",
        "status",
        "answer KB",
        "request: statements",
        "calls",
        "rows read (meta)",
        "rows written (meta)",
        "all: statements",
        "all: rows written (meta)",
      ],
      routes.map((x) => [
        x.route,
        String(x.status),
        kb(x.bytes),
        String(x.request.statements),
        String(x.request.calls),
        String(x.request.rowsRead),
        String(x.request.rowsWritten),
        String(x.isolate.statements),
        String(x.isolate.rowsWritten),
      ]),
    ),
  );

  // 5. Totals, beside the empty tenant.
  const total = (s: StoreSnapshot) => {
    let d1 = 0;
    let pages = 0;
    for (const db of s.d1.values())
      for (const g of db.values()) {
        d1 += g.payload;
        pages += g.pages;
      }
    return { d1, pages };
  };
  const e = total(r.empty);
  const t = total(r.totals);
  console.log(`\nStores at the end (baseline: right after the tenant was made)`);
  const storeRows: string[][] = [["D1: payload KB / pages KB", `${kb(e.d1)} / ${kb(e.pages)}`, `${kb(t.d1)} / ${kb(t.pages)}`]];
  for (const [cls, x] of r.totals.durableObjects) {
    const b = r.empty.durableObjects.get(cls);
    storeRows.push([
      `DO ${cls}: objects, payload KB, files on disk KB`,
      `${b?.files ?? 0}, ${kb(b?.payload ?? 0)}, ${kb(b?.diskBytes ?? 0)}`,
      `${x.files}, ${kb(x.payload)}, ${kb(x.diskBytes)}`,
    ]);
  }
  for (const [name, x] of r.totals.r2) {
    const b = r.empty.r2.get(name);
    storeRows.push([`R2 ${name}: objects, KB`, `${b?.objects ?? 0}, ${kb(b?.bytes ?? 0)}`, `${x.objects}, ${kb(x.bytes)}`]);
  }
  for (const [name, keys] of r.totals.buckets) {
    const b = r.empty.buckets.get(name) ?? new Map<string, number>();
    const sum = (m: Map<string, number>) => [...m.values()].reduce((n, v) => n + v, 0);
    storeRows.push([`bucket ${name}: objects, KB`, `${b.size}, ${kb(sum(b))}`, `${keys.size}, ${kb(sum(keys))}`]);
  }
  console.log(table(["store", "baseline", "end"], storeRows));
  const sources = media.map((m) => `${m.name} ${kb(Number(execFileSync("stat", ["-c", "%s", m.file]).toString()))} KB`).join(", ");
  console.log(`source media uploaded by the bench (in the bucket totals above, not in any job's figures): ${sources}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
