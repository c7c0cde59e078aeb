import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Job } from "../contracts/job";
import { S3Client } from "../contracts/s3-client";
import { apiCall, bootstrap } from "./lib/api-client";
import { LOCAL_ADMIN_SECRET, ROOT, startStack } from "./lib/stack";
import { makeSamples } from "./make-sample-media";

/**
 * Fills a fresh local stack through the public API only (so the same script runs against any
 * version of the code), then writes what it stored and what the API answered: the fixture the data
 * plane's migration test (test/e2e/data-plane-migration.e2e.test.ts) loads into a newer stack.
 *
 *   npx tsx scripts/data-plane-fixture.ts <out-dir>
 *
 * Run it from a checkout of the version whose data is to be migrated (the committed fixture was made
 * by commit 7b34c1b, the last version that kept bulk data and the catalog in D1). It writes:
 * - `d1.json`: every row of every table of the local D1 database (blobs as hex), read with
 *   Node's built-in SQLite from wrangler's state file;
 * - `answers.json`: the tenant and the GET answers of every record it made, to compare after the move.
 */

const API_PORT = Number(process.env["FIXTURE_API_PORT"] ?? 19210);
const out = (s: string) => process.stdout.write(s + "\n");

async function main(): Promise<void> {
  const dest = path.resolve(process.argv[2] ?? "data-plane-fixture");
  const samples = await makeSamples(path.join(ROOT, ".local/samples"), { faces: true });
  const stateDir = await mkdtemp(path.join(os.tmpdir(), "media-jobs-fixture-"));
  const stack = await startStack({ apiPort: API_PORT, s3Port: API_PORT + 1, stateDir, runners: 1 });
  try {
    const tenant = await bootstrap({
      apiBaseUrl: stack.apiBaseUrl,
      adminSecret: LOCAL_ADMIN_SECRET,
      name: "fixture",
      plan: "pro",
      bucket: stack.bucket,
      s3: stack.s3,
    });
    const api = async <T>(method: string, p: string, body?: unknown) =>
      (await apiCall<T>(stack.apiBaseUrl, method, p, tenant.projectKey, body)).data;
    const s3 = new S3Client({ ...tenant.s3, forcePathStyle: true });
    const sourceKey = "uploads/fixture.mp4";
    const video = await readFile(samples.video);
    await s3.putObject(tenant.bucket, sourceKey, video, "video/mp4", video.byteLength);

    const follow = async (body: Record<string, unknown>): Promise<Job> => {
      const created = await api<Job>("POST", "/v1/jobs", body);
      for (;;) {
        const job = await api<Job>("GET", `/v1/jobs/${created.jobId}`);
        if (["completed", "failed", "cancelled"].includes(job.status)) {
          out(`${String(body["serviceType"])}: ${job.status}`);
          if (job.status !== "completed") throw new Error(`${created.jobId} ${job.status}: ${JSON.stringify(job.error ?? job.lastError)}`);
          return job;
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    const summaryId = (job: Job, field: string) => String(job.resultSummary?.[field]);

    const transcription = await follow({
      serviceType: "transcription",
      input: { sourceType: "s3_direct", connectionId: tenant.connectionId, bucket: tenant.bucket, sourceKey, options: { language: "en" } },
    });
    const txt = summaryId(transcription, "textSourceId");
    // An edit (revision 2) and a glossary term (a rebuilt glossary layer), so both kinds of rewrite are in the data.
    const before = await api<{ revision: number; segments: Array<{ id: number; text: string }> }>(
      "GET",
      `/v1/transcriptions/${txt}?layers=segments`,
    );
    const first = before.segments[0];
    if (first)
      await api("PATCH", `/v1/transcriptions/${txt}/segments`, {
        revision: before.revision,
        segments: [{ id: first.id, text: `${first.text} (edited)` }],
      });
    await api("POST", "/v1/glossary", { term: "elinor", preferred: "Elinor" });

    const translation = await follow({ serviceType: "translation", input: { textSourceId: txt, targetLanguage: "es" } });
    await follow({ serviceType: "metadata", input: { textSourceId: txt } });
    const summary = await follow({ serviceType: "summarization", input: { textSourceJobId: txt } });
    await follow({ serviceType: "thumbnail", input: { textSourceId: txt } });
    const clips = await follow({
      serviceType: "clip_generation",
      input: { textSourceId: txt, options: { maxClips: 2, layout: "vertical_9_16" } },
    });
    await follow({ serviceType: "indexer", input: { textSourceIds: [txt] } });
    const dubbing = await follow({
      serviceType: "dubbing",
      input: { transcriptionId: txt, targetLanguage: "es", translationId: summaryId(translation, "translationId") },
    });

    const reads: Record<string, unknown> = {};
    const read = async (p: string) => (reads[p] = await api("GET", p));
    await read(`/v1/transcriptions/${txt}?layers=segments,glossary,raw,visual,translation`);
    await read(`/v1/transcriptions/${txt}/translations`);
    await read(`/v1/translations/${summaryId(translation, "translationId")}`);
    await read(`/v1/transcriptions/${txt}/metadata`);
    await read(`/v1/summarizations/${summaryId(summary, "summarizationId")}`);
    await read(`/v1/thumbnails/${txt}`);
    await read(`/v1/clip-generations/${summaryId(clips, "clipGenerationId")}`);
    await read(`/v1/dubbings/${summaryId(dubbing, "dubbingId")}`);
    await read(`/v1/transcriptions/${txt}/dubbings`);
    await read(`/v1/jobs?limit=20`);
    const searches: Record<string, unknown> = {};
    for (const mode of ["sparse", "dense", "hybrid"])
      searches[mode] = await api("POST", "/v1/catalog/search", { query: "the family estate and its inheritance", mode, limit: 5 });

    await stack.close();
    await mkdir(dest, { recursive: true });
    await writeFile(path.join(dest, "d1.json"), JSON.stringify(await dumpD1(stateDir), null, 1) + "\n");
    await writeFile(
      path.join(dest, "answers.json"),
      JSON.stringify({ madeBy: process.env["FIXTURE_COMMIT"] ?? "unknown", tenant, transcriptionId: txt, reads, searches }, null, 2) + "\n",
    );
    out(`fixture written to ${dest}`);
  } finally {
    await stack.close().catch(() => undefined);
    await rm(stateDir, { recursive: true, force: true });
  }
}

/** Every row of every table of the stack's D1 database, read from wrangler's state file. */
async function dumpD1(stateDir: string): Promise<Record<string, Array<Record<string, unknown>>>> {
  const file = await findD1File(path.join(stateDir, "wrangler"));
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE '%_fts%'",
      )
      .all() as Array<{ name: string }>;
    const dump: Record<string, Array<Record<string, unknown>>> = {};
    for (const { name } of tables) {
      const rows = db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>;
      dump[name] = rows.map((r) =>
        Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Uint8Array ? { hex: Buffer.from(v).toString("hex") } : v])),
      );
    }
    return dump;
  } finally {
    db.close();
  }
}

async function findD1File(wranglerState: string): Promise<string> {
  const { readdir } = await import("node:fs/promises");
  const dir = path.join(wranglerState, "v3/d1/miniflare-D1DatabaseObject");
  const files = (await readdir(dir)).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (files.length !== 1) throw new Error(`expected one D1 database file in ${dir}, found ${files.join(", ") || "none"}`);
  return path.join(dir, files[0]!);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
