import { spawn } from "node:child_process";
import { once } from "node:events";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SearchRequestSchema } from "../../../contracts/catalog";
import { CreateJobSchema } from "../../../contracts/job-requests";
import { SERVICE_TYPES } from "../../../contracts/service-types";
import { CreateWorkflowSchema } from "../../../contracts/workflows";
import type { Job } from "../../../sdk/client";
import { ERROR_META_KEY } from "../../../sdk/cli/mcp/results";
import {
  apiError,
  jobFixture,
  jobStates,
  ok,
  startFakeApi,
  workflowFixture,
  workflowSteps,
  type FakeApi,
} from "../../support/fake-media-jobs-api";
import { callTool, CLI_BIN, startMcpServer, textOf, type McpSession } from "../../support/mcp-stdio";
import { tempConfigHome } from "./helpers";

/**
 * `media-jobs mcp` spoken to by the MCP SDK's own Client over stdio (bin.mjs in a child process),
 * against the fake API. One server for the file; each test scripts routes of its own job ids.
 */
let api: FakeApi;
let mcp: McpSession;
let env: Record<string, string>;
beforeAll(async () => {
  api = await startFakeApi();
  env = { XDG_CONFIG_HOME: await tempConfigHome(), MEDIA_JOBS_URL: api.url, MEDIA_JOBS_KEY: "sk_prj_test" };
  // Polls 20 ms apart (heartbeats every 200 ms): waits on scripted states take moments, not seconds.
  mcp = await startMcpServer(env, ["--poll-interval", "20"]);
});
afterAll(async () => {
  await mcp?.close();
  await api?.close();
});

const requestsTo = (method: string, path: string) => api.requests.filter((r) => r.method === method && r.path === path);
const pollsUntil = (jobId: string, ...states: Array<Partial<Job>>) => jobStates(...states.map((s) => ({ jobId, ...s }))).map((j) => ok(j));
const errorMeta = (result: { _meta?: Record<string, unknown> }) => result._meta?.[ERROR_META_KEY];
const TRANSCRIPTION = {
  serviceType: "transcription",
  input: { sourceType: "s3_direct", connectionId: "stc_1", bucket: "media", sourceKey: "in/talk.mp4" },
};

describe("tools and their schemas", () => {
  it("lists the tools for jobs, transcripts, search and workflows", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        "cancel_job",
        "get_job",
        "get_transcript",
        "list_jobs",
        "search_catalog",
        "submit_job",
        "wait_for_job",
        "get_workflow",
        "submit_workflow",
        "wait_for_workflow",
      ].sort(),
    );
  });

  it("submit_job's job argument is the contracts' CreateJobSchema as JSON Schema: one variant per service type", async () => {
    const { tools } = await mcp.client.listTools();
    const submit = tools.find((t) => t.name === "submit_job")!;
    const { $schema: _, ...expected } = z.toJSONSchema(CreateJobSchema, { target: "draft-7", io: "input" });
    const job = submit.inputSchema.properties?.["job"] as { oneOf: unknown[] };
    expect(job).toMatchObject(expected);
    expect(job.oneOf).toHaveLength(SERVICE_TYPES.length);
    expect(submit.inputSchema.required).toEqual(["job"]);
  });

  it("submit_workflow's workflow argument is the contracts' CreateWorkflowSchema as JSON Schema", async () => {
    const { tools } = await mcp.client.listTools();
    const submit = tools.find((t) => t.name === "submit_workflow")!;
    const { $schema: _, ...expected } = z.toJSONSchema(CreateWorkflowSchema, { target: "draft-7", io: "input" });
    expect(submit.inputSchema.properties?.["workflow"]).toMatchObject(expected);
  });

  it("search_catalog's arguments are the search request's fields, query required", async () => {
    const { tools } = await mcp.client.listTools();
    const search = tools.find((t) => t.name === "search_catalog")!;
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual(Object.keys(SearchRequestSchema.shape).sort());
    expect(search.inputSchema.required).toEqual(["query"]);
  });

  it("every tool declares an output schema, so its structured content is checked on both ends", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.filter((t) => t.outputSchema?.type !== "object").map((t) => t.name)).toEqual([]);
  });
});

describe("submit_job", () => {
  it("creates the job with the body and Idempotency-Key given, and answers the job", async () => {
    api.on("POST", "/v1/jobs", ok(jobFixture({ jobId: "job_submit1" }), {}, 201));
    const r = await callTool(mcp.client, "submit_job", { job: TRANSCRIPTION, idempotencyKey: "ep42" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ job: { jobId: "job_submit1", status: "queued" } });
    expect(textOf(r)).toMatch(/submitted job_submit1/);
    const [sent] = requestsTo("POST", "/v1/jobs").slice(-1);
    expect(JSON.parse(sent!.body)).toEqual(TRANSCRIPTION);
    expect(sent!.headers["idempotency-key"]).toBe("ep42");
  });

  it("arguments the contract refuses are a tool error naming the field, and never reach the API", async () => {
    const before = requestsTo("POST", "/v1/jobs").length;
    const r = await callTool(mcp.client, "submit_job", { job: { ...TRANSCRIPTION, input: { sourceType: "ftp" } } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/job\.input\.sourceType/);
    expect(requestsTo("POST", "/v1/jobs")).toHaveLength(before);
  });

  it("an API refusal is a tool error carrying the API's code, message and details", async () => {
    api.on(
      "POST",
      "/v1/jobs",
      apiError(422, "validationError", "connection not found: stc_1", [{ path: "input.connectionId", issue: "notFound" }]),
    );
    const r = await callTool(mcp.client, "submit_job", { job: TRANSCRIPTION });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/validationError \(HTTP 422\): connection not found: stc_1\n {2}input\.connectionId: notFound/);
    expect(errorMeta(r)).toEqual({
      status: 422,
      code: "validationError",
      message: "connection not found: stc_1",
      details: [{ path: "input.connectionId", issue: "notFound" }],
      requestId: null,
    });
  });
});

describe("wait_for_job", () => {
  it("answers the finished job, having sent a progress notification for each state it saw", async () => {
    api.on(
      "GET",
      "/v1/jobs/job_wait1",
      ...pollsUntil(
        "job_wait1",
        { status: "queued" },
        { status: "processing", currentStage: "transcribe" },
        { status: "completed", resultSummary: { textSourceId: "txt_w1" } },
      ),
    );
    const seen: Progress[] = [];
    const r = await callTool(mcp.client, "wait_for_job", { jobId: "job_wait1" }, { onprogress: (p) => seen.push(p) });
    expect(r.structuredContent).toMatchObject({ job: { status: "completed", resultSummary: { textSourceId: "txt_w1" } }, timedOut: false });
    expect(textOf(r)).toMatch(/textSourceId {2}txt_w1/);
    // The last notification may cross the answer on the wire, after which the client drops it.
    expect(seen.slice(0, 2)).toEqual([
      { progress: 1, message: "job_wait1 queued" },
      { progress: 2, message: "job_wait1 processing · transcribe" },
    ]);
  });

  it("a failed job is an answer, not a tool error: the job with its error", async () => {
    api.on(
      "GET",
      "/v1/jobs/job_wait2",
      ok(jobFixture({ jobId: "job_wait2", status: "failed", error: { code: "sourceNotFound", message: "no such key" } })),
    );
    const r = await callTool(mcp.client, "wait_for_job", { jobId: "job_wait2" });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ job: { status: "failed", error: { code: "sourceNotFound" } }, timedOut: false });
    expect(textOf(r)).toMatch(/error +sourceNotFound: no such key/);
  });

  it("a job still running at timeoutSeconds is answered with timedOut: true and its last state", async () => {
    api.on("GET", "/v1/jobs/job_wait3", ok(jobFixture({ jobId: "job_wait3", status: "processing", currentStage: "transcribe" })));
    const r = await callTool(mcp.client, "wait_for_job", { jobId: "job_wait3", timeoutSeconds: 0.3 });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ job: { status: "processing" }, timedOut: true });
    expect(textOf(r)).toMatch(/still processing after 0.3 s: call wait_for_job again/);
  });

  it("while nothing changes the last state is repeated as a heartbeat, its progress still growing", async () => {
    api.on("GET", "/v1/jobs/job_wait4", ok(jobFixture({ jobId: "job_wait4", status: "processing", currentStage: "diarize" })));
    const seen: Progress[] = [];
    await callTool(mcp.client, "wait_for_job", { jobId: "job_wait4", timeoutSeconds: 1 }, { onprogress: (p) => seen.push(p) });
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seen.map((p) => p.message))).toEqual(new Set(["job_wait4 processing · diarize"]));
    expect(seen.map((p) => p.progress)).toEqual(seen.map((_, i) => i + 1));
  });

  it("an id that is not a job id is refused before any request", async () => {
    const r = await callTool(mcp.client, "wait_for_job", { jobId: "txt_1" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/must be an id starting with job_/);
  });
});

describe("get_job, list_jobs, cancel_job", () => {
  it("get_job with a project key answers the job and no timeline, without asking the console-only route", async () => {
    api.on("GET", "/v1/jobs/job_get1", ok(jobFixture({ jobId: "job_get1", status: "processing", currentStage: "transcribe" })));
    const r = await callTool(mcp.client, "get_job", { jobId: "job_get1" });
    expect(r.structuredContent).toMatchObject({ job: { jobId: "job_get1", currentStage: "transcribe" }, timeline: null });
    expect(textOf(r)).toMatch(/stage +transcribe/);
    expect(requestsTo("GET", "/v1/jobs/job_get1/progress")).toEqual([]);
  });

  it("get_job with a console session also answers the stage timeline", async () => {
    const timeline = {
      currentStage: "transcribe",
      progress: [
        { stage: "extract_audio", event: "started", at: "2026-11-20T10:00:01.000Z" },
        { stage: "extract_audio", event: "completed", at: "2026-11-20T10:00:02.000Z" },
        { stage: "transcribe", event: "started", at: "2026-11-20T10:00:02.000Z" },
      ],
      attemptHistory: [],
    };
    api.on("GET", "/v1/jobs/job_get2", ok(jobFixture({ jobId: "job_get2", status: "processing", currentStage: "transcribe" })));
    api.on("GET", "/v1/jobs/job_get2/progress", ok(timeline));
    const session = await startMcpServer({ ...env, MEDIA_JOBS_KEY: "sk_con_test" });
    try {
      const r = await callTool(session.client, "get_job", { jobId: "job_get2" });
      expect(r.structuredContent).toMatchObject({ job: { jobId: "job_get2" }, timeline });
      expect(textOf(r)).toMatch(/extract_audio completed\n.*transcribe started/);
    } finally {
      await session.close();
    }
  });

  it("list_jobs sends the filters as GET /v1/jobs's query and answers the page", async () => {
    const jobs = [jobFixture({ jobId: "job_l1", status: "failed" }), jobFixture({ jobId: "job_l2", status: "cancelled" })];
    api.on("GET", "/v1/jobs", ok(jobs, { pagination: { page: 2, limit: 2, total: 4, totalPages: 2 } }));
    const r = await callTool(mcp.client, "list_jobs", {
      statuses: ["failed", "cancelled"],
      serviceTypes: ["transcription"],
      page: 2,
      limit: 2,
    });
    expect(r.structuredContent).toMatchObject({
      jobs: [{ jobId: "job_l1" }, { jobId: "job_l2" }],
      pagination: { page: 2, totalPages: 2, total: 4 },
    });
    expect(textOf(r)).toMatch(/job_l1 +transcription +failed[\s\S]*page 2 of 2 \(4 jobs\)/);
    expect(Object.fromEntries(requestsTo("GET", "/v1/jobs").at(-1)!.query)).toEqual({
      statuses: "failed,cancelled",
      serviceTypes: "transcription",
      page: "2",
      limit: "2",
    });
  });

  it("cancel_job answers the job as the cancel left it; cancelling a finished job is the API's conflict", async () => {
    api.on("POST", "/v1/jobs/job_c1/cancel", ok(jobFixture({ jobId: "job_c1", status: "cancelling" })));
    api.on("POST", "/v1/jobs/job_c2/cancel", apiError(409, "conflict", "job is already completed"));
    expect((await callTool(mcp.client, "cancel_job", { jobId: "job_c1" })).structuredContent).toMatchObject({
      job: { status: "cancelling" },
    });
    const refused = await callTool(mcp.client, "cancel_job", { jobId: "job_c2" });
    expect(refused.isError).toBe(true);
    expect(errorMeta(refused)).toMatchObject({ status: 409, code: "conflict" });
  });
});

describe("get_transcript and search_catalog", () => {
  const SRT = "1\n00:00:00,000 --> 00:00:02,000\nHello there.\n";

  it("get_transcript answers the API's export in the format asked, with the revision it was rendered from", async () => {
    api.on("GET", "/v1/transcriptions/txt_t1/export", {
      status: 200,
      body: SRT,
      headers: { "content-type": "application/x-subrip; charset=utf-8", "x-transcript-revision": "3" },
    });
    const r = await callTool(mcp.client, "get_transcript", { transcriptionId: "txt_t1", format: "srt", layer: "raw", speakers: false });
    expect(textOf(r)).toBe(SRT);
    expect(r.structuredContent).toEqual({ transcriptionId: "txt_t1", format: "srt", layer: "raw", revision: 3, content: SRT });
    expect(Object.fromEntries(requestsTo("GET", "/v1/transcriptions/txt_t1/export").at(-1)!.query)).toEqual({
      format: "srt",
      layer: "raw",
      speakers: "false",
    });
  });

  it("get_transcript asks for plain text of the current segments by default", async () => {
    api.on("GET", "/v1/transcriptions/txt_t2/export", { status: 200, body: "Hello there.\n", headers: { "content-type": "text/plain" } });
    const r = await callTool(mcp.client, "get_transcript", { transcriptionId: "txt_t2" });
    expect(textOf(r)).toBe("Hello there.\n");
    expect(Object.fromEntries(requestsTo("GET", "/v1/transcriptions/txt_t2/export").at(-1)!.query)).toEqual({
      format: "txt",
      layer: "segments",
    });
  });

  it("get_transcript offers no Word export: a binary file is no text for a model", async () => {
    const r = await callTool(mcp.client, "get_transcript", { transcriptionId: "txt_t3", format: "docx" });
    expect(r.isError).toBe(true);
    expect(requestsTo("GET", "/v1/transcriptions/txt_t3/export")).toEqual([]);
  });

  it("search_catalog sends the query and options and answers the ranked passages", async () => {
    const hit = {
      rank: 1,
      score: 0.9,
      textSourceId: "txt_s1",
      chunkId: "chk_1",
      start: 62,
      end: 75,
      segmentIds: [4],
      text: "the dough rises for an hour",
      markedText: "the <mark>dough</mark> rises for an hour",
      matches: [],
    };
    api.on("POST", "/v1/catalog/search", ok({ query: "dough", mode: "sparse", results: [hit], groups: [] }, { tookMs: 3 }));
    const r = await callTool(mcp.client, "search_catalog", { query: "dough", mode: "sparse", limit: 5 });
    expect(textOf(r)).toMatch(/1\. txt_s1 1:02-1:15 {2}the dough rises for an hour/);
    expect(r.structuredContent).toMatchObject({ query: "dough", results: [{ textSourceId: "txt_s1" }], metadata: { tookMs: 3 } });
    expect(JSON.parse(requestsTo("POST", "/v1/catalog/search").at(-1)!.body)).toEqual({ query: "dough", mode: "sparse", limit: 5 });
  });
});

describe("workflows", () => {
  const WORKFLOW = {
    steps: [
      { id: "transcribe", serviceType: "transcription", input: TRANSCRIPTION.input },
      { id: "clips", serviceType: "clip_generation", input: { textSourceId: "{{transcribe.textSourceId}}" }, dependsOn: ["transcribe"] },
    ],
  };

  it("submit_workflow creates the workflow with the body and Idempotency-Key given, and answers a row per step", async () => {
    api.on(
      "POST",
      "/v1/workflows",
      ok(workflowFixture({ workflowId: "wfl_s1", steps: workflowSteps(["queued", "job_t1"], ["waiting", null]) }), {}, 201),
    );
    const r = await callTool(mcp.client, "submit_workflow", { workflow: WORKFLOW, idempotencyKey: "wf-ep42" });
    expect(r.structuredContent).toMatchObject({ workflow: { workflowId: "wfl_s1", status: "running" } });
    expect(textOf(r)).toMatch(/submitted wfl_s1[\s\S]*transcribe +transcription +queued +job_t1\n +clips +clip_generation +waiting +-/);
    const [sent] = requestsTo("POST", "/v1/workflows").slice(-1);
    expect(JSON.parse(sent!.body)).toEqual(WORKFLOW);
    expect(sent!.headers["idempotency-key"]).toBe("wf-ep42");
  });

  it("wait_for_workflow answers the ended workflow, having sent a progress notification for each step's move", async () => {
    api.on(
      "GET",
      "/v1/workflows/wfl_w1",
      ok(workflowFixture({ workflowId: "wfl_w1", steps: workflowSteps(["processing", "job_t1"], ["waiting", null]) })),
      ok(workflowFixture({ workflowId: "wfl_w1", steps: workflowSteps(["completed", "job_t1"], ["queued", "job_c1"]) })),
      ok(
        workflowFixture({
          workflowId: "wfl_w1",
          status: "failed",
          error: { code: "stepFailed", message: "step clips failed" },
          steps: workflowSteps(["completed", "job_t1"], ["failed", "job_c1"]),
        }),
      ),
    );
    const seen: Progress[] = [];
    const r = await callTool(mcp.client, "wait_for_workflow", { workflowId: "wfl_w1" }, { onprogress: (p) => seen.push(p) });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ workflow: { status: "failed" }, timedOut: false });
    expect(textOf(r)).toMatch(/error: stepFailed: step clips failed/);
    expect(seen.slice(0, 2)).toEqual([
      { progress: 1, message: "wfl_w1 running · transcribe processing, clips waiting" },
      { progress: 2, message: "wfl_w1 running · transcribe completed, clips queued" },
    ]);
  });

  it("get_workflow of an unknown id is a tool error carrying the API's notFound", async () => {
    api.on("GET", "/v1/workflows/wfl_gone", apiError(404, "notFound", "workflow not found: wfl_gone"));
    const r = await callTool(mcp.client, "get_workflow", { workflowId: "wfl_gone" });
    expect(r.isError).toBe(true);
    expect(errorMeta(r)).toMatchObject({ status: 404, code: "notFound", message: "workflow not found: wfl_gone" });
  });
});

describe("a server that does not crash", () => {
  it("without a login every call is a notLoggedIn tool error, and the server goes on answering", async () => {
    const lost = await startMcpServer({ XDG_CONFIG_HOME: await tempConfigHome(), HOME: await tempConfigHome() });
    try {
      for (const name of ["list_jobs", "get_job"]) {
        const r = await callTool(lost.client, name, name === "get_job" ? { jobId: "job_1" } : {});
        expect(r.isError).toBe(true);
        expect(errorMeta(r)).toMatchObject({ code: "notLoggedIn" });
      }
    } finally {
      await lost.close();
    }
  });

  it("stdout carries JSON-RPC messages only; the server's own words go to stderr", async () => {
    const child = spawn(process.execPath, [CLI_BIN, "mcp"], {
      env: { PATH: process.env["PATH"] ?? "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const send = (msg: object) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
    send({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/call", params: { name: "get_job", arguments: { jobId: "job_missing" } } });
    while (stdout.split("\n").filter(Boolean).length < 2) await once(child.stdout, "data");
    child.stdin.end();
    await once(child, "exit");
    const lines = stdout.split("\n").filter(Boolean);
    expect(lines.map((l) => (JSON.parse(l) as { jsonrpc: string; id: number }).id)).toEqual([1, 2]);
    expect(lines.every((l) => (JSON.parse(l) as { jsonrpc: string }).jsonrpc === "2.0")).toBe(true);
    expect(stderr).toMatch(/media-jobs mcp .*serving on stdio/);
  });
});
