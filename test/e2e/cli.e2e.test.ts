import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseSync } from "subtitle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MediaJobs, type TranscriptRecord } from "../../sdk/client";
import { JobSchema, type Job } from "../../contracts/job";
import { startE2E, type E2E } from "../support/e2e-stack";
import { callTool, startMcpServer, textOf } from "../support/mcp-stdio";
import { speechVideo } from "../support/media-fixtures";

/**
 * The `media-jobs` tool as a user runs it (bin.mjs in a child process, its own config directory)
 * against the whole local stack: log in, submit a transcription, wait for it, read it as SRT.
 */
let e: E2E;
let configHome: string;
/** The job the first test completed: the typed client's check reads its records. */
let completed: Job | undefined;
beforeAll(async () => {
  e = await startE2E({ runners: 1 });
  configHome = await mkdtemp(path.join(os.tmpdir(), "media-jobs-cli-e2e-"));
});
afterAll(async () => {
  await e?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

const BIN = path.join(import.meta.dirname, "../../sdk/cli/bin.mjs");

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      // Only the config home (and what a test adds): the URL and key come from `login`.
      { env: { PATH: process.env["PATH"], HOME: configHome, XDG_CONFIG_HOME: configHome, ...env }, timeout: 230_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("media-jobs against the local stack", () => {
  it("login, submit a transcription, wait for it (exit 0) and read it as SRT", async () => {
    await e.s3.putObject(e.tenant.bucket, "e2e/cli-speech.mp4", await readFile(await speechVideo()), "video/mp4");

    const login = await cli(["login", "--url", e.stack.apiBaseUrl, "--key", e.tenant.projectKey, "--json"]);
    expect(login.code, login.stderr).toBe(0);

    const submit = await cli([
      "jobs",
      "submit",
      "--connection",
      e.tenant.connectionId,
      "--bucket",
      e.tenant.bucket,
      "--source-key",
      "e2e/cli-speech.mp4",
      "--language",
      "en",
      "--json",
    ]);
    expect(submit.code, submit.stderr).toBe(0);
    const created = JSON.parse(submit.stdout) as Job;
    expect(created.status).toMatch(/^(pending|queued)$/);

    const wait = await cli(["jobs", "wait", created.jobId, "--timeout", "200", "--json"]);
    expect(wait.code, wait.stderr).toBe(0);
    const done = JSON.parse(wait.stdout) as Job;
    expect(done.status).toBe("completed");
    completed = done;
    const textSourceId = String(done.resultSummary?.["textSourceId"]);

    const srt = await cli(["transcripts", "get", textSourceId, "--format", "srt"]);
    expect(srt.code, srt.stderr).toBe(0);
    const cues = parseSync(srt.stdout).filter((n) => n.type === "cue");
    expect(cues.length).toBeGreaterThan(0);
    // Rendered from the API's segments with the runner's writer: the same file the job put in the bucket.
    const keys = created.input["resolvedOutputKeys"] as { srt: string };
    expect(srt.stdout).toBe(await (await e.s3.getObject(e.tenant.bucket, keys.srt)).text());

    const list = await cli(["jobs", "list", "--status", "completed", "--json"]);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { data: Job[] }).data.map((j) => j.jobId)).toContain(created.jobId);
  });

  it("the typed client's types match the real responses: the Job exactly, the transcript record key for key", async () => {
    expect(completed, "the first test completes a job").toBeDefined();
    const mj = new MediaJobs({ baseUrl: e.stack.apiBaseUrl, apiKey: e.tenant.projectKey });
    // The client's Job type is z.infer of JobSchema: strict parsing fails on any field the type lacks.
    JobSchema.strict().parse(await mj.jobs.get(completed!.jobId));
    for (const job of (await mj.jobs.list({ statuses: ["completed"] })).data) JobSchema.strict().parse(job);
    // TranscriptRecord is written from docs/api.md: every key it declares is answered, and nothing else.
    const record = await mj.transcriptions.get(String(completed!.resultSummary?.["textSourceId"]), { layers: ["segments"] });
    const declared = Object.keys(TRANSCRIPT_RECORD_KEYS);
    const optional = ["segments", "glossary", "raw", "visualChunks", "translation"];
    expect(Object.keys(record).filter((k) => !declared.includes(k))).toEqual([]);
    expect(declared.filter((k) => !optional.includes(k) && !(k in record))).toEqual([]);
  });

  it("an MCP client (the SDK's own, over stdio) submits a transcription, waits for it and reads it as SRT", async () => {
    await e.s3.putObject(e.tenant.bucket, "e2e/mcp-speech.mp4", await readFile(await speechVideo()), "video/mp4");
    const mcp = await startMcpServer({
      HOME: configHome,
      XDG_CONFIG_HOME: configHome,
      MEDIA_JOBS_URL: e.stack.apiBaseUrl,
      MEDIA_JOBS_KEY: e.tenant.projectKey,
    });
    try {
      const input = {
        sourceType: "s3_direct",
        connectionId: e.tenant.connectionId,
        bucket: e.tenant.bucket,
        sourceKey: "e2e/mcp-speech.mp4",
      };
      const submitted = await callTool(mcp.client, "submit_job", {
        job: { serviceType: "transcription", input: { ...input, options: { language: "en" } } },
      });
      expect(submitted.isError, textOf(submitted)).toBeFalsy();
      const { jobId } = (submitted.structuredContent as { job: Job }).job;

      // Each wait stays under the client's 60 s request timeout; a job still running is waited for again, as an agent would.
      let waited: { job: Job; timedOut: boolean } | undefined;
      for (let call = 0; call < 4 && (!waited || waited.timedOut); call++) {
        const r = await callTool(mcp.client, "wait_for_job", { jobId, timeoutSeconds: 50 });
        expect(r.isError, textOf(r)).toBeFalsy();
        waited = r.structuredContent as { job: Job; timedOut: boolean };
      }
      expect(waited?.job.status).toBe("completed");
      const transcriptionId = String(waited!.job.resultSummary?.["textSourceId"]);

      const srt = await callTool(mcp.client, "get_transcript", { transcriptionId, format: "srt" });
      expect(srt.isError, textOf(srt)).toBeFalsy();
      expect(parseSync(textOf(srt)).filter((n) => n.type === "cue").length).toBeGreaterThan(0);
      const keys = waited!.job.input["resolvedOutputKeys"] as { srt: string };
      expect(textOf(srt)).toBe(await (await e.s3.getObject(e.tenant.bucket, keys.srt)).text());
    } finally {
      await mcp.close();
    }
  });

  it("an unknown job is an API error: exit 5, the envelope's code in --json", async () => {
    const r = await cli(["jobs", "get", "job_doesnotexist", "--json"], {
      MEDIA_JOBS_URL: e.stack.apiBaseUrl,
      MEDIA_JOBS_KEY: e.tenant.projectKey,
    });
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { status: 404, code: "notFound" } });
  });
});

/** Every key of TranscriptRecord, checked complete by the compiler (`satisfies`). */
const TRANSCRIPT_RECORD_KEYS = {
  transcriptionId: true,
  textSourceId: true,
  projectId: true,
  jobId: true,
  status: true,
  language: true,
  durationSec: true,
  engine: true,
  model: true,
  revision: true,
  segmentCount: true,
  speakers: true,
  diarization: true,
  languageConfidence: true,
  segments: true,
  glossary: true,
  raw: true,
  visualChunks: true,
  thumbnails: true,
  metadata: true,
  translation: true,
  source: true,
  outputKeys: true,
  redaction: true,
  outputKeysRevision: true,
  outputKeysStale: true,
  createdAt: true,
  updatedAt: true,
} satisfies Record<keyof TranscriptRecord, true>;
