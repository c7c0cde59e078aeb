import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { parseSync } from "subtitle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "../../scripts/lib/api-client";
import { startE2E, type E2E } from "../support/e2e-stack";
import { speechVideo } from "../support/media-fixtures";
import { PYTHON_SDK, pythonJson } from "../support/python-client";

/**
 * The Python client as a user runs it: installed with `pip install ./sdk/python` into a fresh
 * virtual environment (no Python index reached), then its example (sdk/python/examples/
 * transcribe_and_search.py) against the whole local stack: a real transcription of LibriVox speech,
 * read as text and SRT, indexed and searched, its webhooks received and verified by the client.
 */
let e: E2E;
let venv: string;
let out: ScenarioOutput;

interface ScenarioOutput {
  jobId: string;
  replayedJobId: string;
  statusesSeen: string[];
  status: string;
  textSourceId: string;
  bucketSrtKey: string;
  segmentCount: number;
  segments: Array<{ start: number; end: number; text: string }>;
  text: string;
  srt: { content: string; contentType: string; revision: number | null };
  preset: { presetId: string; variables: string[] };
  workflow: { workflowId: string; presetId: string; status: string; steps: Array<{ id: string; status: string; jobId: string | null }> };
  search: { query: string; mode: string; hits: Array<{ textSourceId: string; markedText: string }>; tookMs: unknown };
  downloaded: Record<string, string>;
  notFound: { status?: number; code?: string };
  completedDelivered: { job: boolean; workflow: boolean };
  webhooks: Array<{ event?: string; id?: string; verified: boolean; reason?: string }>;
  bookmark: string | null;
}

beforeAll(async () => {
  e = await startE2E({ runners: 1, settings: { webhooks: { allowLoopbackHttp: true } } });
  venv = await mkdtemp(path.join(os.tmpdir(), "media-jobs-py-"));
  await promisify(execFile)("python3", ["-m", "venv", venv]);
  await promisify(execFile)(path.join(venv, "bin", "pip"), ["install", "--quiet", "--no-input", PYTHON_SDK], { timeout: 120_000 });
  await e.s3.putObject(e.tenant.bucket, "e2e/python-speech.mp4", await readFile(await speechVideo()), "video/mp4");
  // The secret is shown once, so the test rotates it to learn it (the workspace key may).
  const { data } = await apiCall<{ webhookSecret: string }>(
    e.stack.apiBaseUrl,
    "POST",
    `/v1/projects/${e.tenant.projectId}/webhook-secret`,
    e.tenant.workspaceKey,
    undefined,
    {},
    e.checkResponse,
  );
  out = await pythonJson<ScenarioOutput>(["examples/transcribe_and_search.py"], {
    python: path.join(venv, "bin", "python"),
    timeoutMs: 170_000,
    env: {
      // The installed package, not the sources: nothing on the path but the venv's site-packages.
      PYTHONPATH: "",
      MEDIA_JOBS_URL: e.stack.apiBaseUrl,
      MEDIA_JOBS_KEY: e.tenant.projectKey,
      MEDIA_JOBS_WEBHOOK_SECRET: data.webhookSecret,
      CONNECTION_ID: e.tenant.connectionId,
      BUCKET: e.tenant.bucket,
      SOURCE_KEY: "e2e/python-speech.mp4",
      S3_ENDPOINT: e.stack.s3.endpoint,
      AWS_ACCESS_KEY_ID: e.stack.s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: e.stack.s3.secretAccessKey,
      AWS_REGION: e.stack.s3.region,
      S3_PATH_STYLE: "1",
    },
  });
}, 240_000);
afterAll(async () => {
  await e?.close();
  if (venv) await rm(venv, { recursive: true, force: true });
});

describe("the Python client, installed with pip, against the local stack", () => {
  it("one job for a create sent twice with the same Idempotency-Key, waited for to completed", () => {
    expect(out.replayedJobId).toBe(out.jobId);
    expect(out.status).toBe("completed");
    expect(out.statusesSeen.at(-1)).toBe("completed");
    expect(out.bookmark).toMatch(/^[0-9a-f-]+$/);
  });

  it("the transcript reads as text and as the SRT file the job wrote to the bucket", async () => {
    expect(out.segmentCount).toBeGreaterThan(0);
    for (const segment of out.segments) expect(out.text).toContain(segment.text.trim());
    // At least a cue per segment: the SRT writer splits a long segment into several cues.
    expect(parseSync(out.srt.content).filter((n) => n.type === "cue").length).toBeGreaterThanOrEqual(out.segmentCount);
    expect(out.srt.content).toBe(await (await e.s3.getObject(e.tenant.bucket, out.bucketSrtKey)).text());
    expect(out.srt.contentType).toMatch(/^application\/x-subrip/);
  });

  it("the job's four files download from the bucket with the bucket's credentials (SigV4, checked by the local S3 server)", async () => {
    const srtName = out.bucketSrtKey.split("/").at(-1)!;
    expect(Object.keys(out.downloaded)).toHaveLength(4);
    expect(out.downloaded[srtName]).toBe(await (await e.s3.getObject(e.tenant.bucket, out.bucketSrtKey)).text());
  });

  it("a preset's workflow, its variable filled, runs its indexer step as a job to completed", () => {
    expect(out.preset.variables).toEqual(["textSourceId"]);
    expect(out.workflow).toMatchObject({ presetId: out.preset.presetId, status: "completed" });
    expect(out.workflow.steps).toEqual([{ id: "index", status: "completed", jobId: expect.stringMatching(/^job_/) }]);
  });

  it("after the indexing, a search for one of its words finds the transcript with the word marked", () => {
    expect(out.search.hits.map((h) => h.textSourceId)).toContain(out.textSourceId);
    expect(out.search.hits.some((h) => h.markedText.toLowerCase().includes(`<mark>${out.search.query}</mark>`))).toBe(true);
    expect(typeof out.search.tookMs).toBe("number");
  });

  it("the job's and the workflow's webhooks arrive signed, and the client verifies every one", () => {
    expect(out.completedDelivered).toEqual({ job: true, workflow: true });
    expect(out.webhooks.every((w) => w.verified)).toBe(true);
    // The workflow sends one event, when it ends.
    expect(out.webhooks.filter((w) => w.id === out.workflow.workflowId).map((w) => w.event)).toEqual(["workflow.completed"]);
  });

  it("an unknown job is a typed error from the envelope", () => {
    expect(out.notFound).toEqual({ status: 404, code: "notFound" });
  });
});
