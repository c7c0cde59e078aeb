import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Job } from "../../../sdk/client";
import { apiError, jobFixture, jobStates, ok, startFakeApi, type FakeApi } from "../../support/fake-media-jobs-api";
import { runCli, tempConfigHome } from "./helpers";

let api: FakeApi;
let env: Record<string, string>;
beforeEach(async () => {
  api = await startFakeApi();
  env = { XDG_CONFIG_HOME: await tempConfigHome(), MEDIA_JOBS_URL: api.url, MEDIA_JOBS_KEY: "sk_prj_test" };
});
afterEach(async () => api.close());

const pollsUntil = (...statuses: Array<Partial<Job>>) => jobStates(...statuses).map((j) => ok(j));

describe("arguments and usage", () => {
  it("--help lists the commands and the exit codes, and exits 0", async () => {
    const r = await runCli(["--help"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/jobs/);
    expect(r.stdout).toMatch(/5 {2}API or authentication error/);
  });

  it("a command's own --help lists the exit codes too", async () => {
    const r = await runCli(["jobs", "wait", "--help"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/3 {2}the job was cancelled/);
  });

  it("an unknown option is a usage error: exit 2", async () => {
    expect((await runCli(["jobs", "get", "job_1", "--bogus"], { env })).code).toBe(2);
  });

  it("a value outside the allowed choices is a usage error: exit 2", async () => {
    expect((await runCli(["transcripts", "get", "txt_1", "--format", "pdf"], { env })).code).toBe(2);
  });

  it("an unknown status in --status is a usage error: exit 2", async () => {
    expect((await runCli(["jobs", "list", "--status", "done"], { env })).code).toBe(2);
  });

  it("submit with neither a body nor the transcription flags is a usage error naming the missing flags", async () => {
    const r = await runCli(["jobs", "submit", "--bucket", "media"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--connection, --source-key/);
  });

  it("a body that is not JSON is a usage error", async () => {
    expect((await runCli(["jobs", "submit", "-"], { env, stdin: "{not json" })).code).toBe(2);
  });
});

describe("login and configuration", () => {
  it("login saves the URL and key in $XDG_CONFIG_HOME/media-jobs/config.json, readable by its owner only", async () => {
    api.on("GET", "/v1/jobs", ok([], { pagination: { page: 1, limit: 1, total: 0, totalPages: 0 } }));
    const home = env["XDG_CONFIG_HOME"]!;
    const r = await runCli(["login", "--url", api.url, "--key", "sk_prj_saved"], { env: { XDG_CONFIG_HOME: home } });
    expect(r.code).toBe(0);
    const file = path.join(home, "media-jobs", "config.json");
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ url: api.url, key: "sk_prj_saved" });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
  });

  it("login reads the key from stdin when --key is not given", async () => {
    api.on("GET", "/v1/jobs", ok([], { pagination: { page: 1, limit: 1, total: 0, totalPages: 0 } }));
    const home = env["XDG_CONFIG_HOME"]!;
    await runCli(["login", "--url", api.url], { env: { XDG_CONFIG_HOME: home }, stdin: "sk_prj_piped\n" });
    expect(JSON.parse(await readFile(path.join(home, "media-jobs", "config.json"), "utf8")).key).toBe("sk_prj_piped");
  });

  it("login with a key the API refuses exits 5 and saves nothing", async () => {
    api.on("GET", "/v1/jobs", apiError(401, "unauthorized", "invalid API key"));
    const home = env["XDG_CONFIG_HOME"]!;
    const r = await runCli(["login", "--url", api.url, "--key", "sk_prj_wrong"], { env: { XDG_CONFIG_HOME: home } });
    expect(r.code).toBe(5);
    await expect(stat(path.join(home, "media-jobs", "config.json"))).rejects.toThrow(/ENOENT/);
  });

  it("later commands use the saved key", async () => {
    api.on("GET", "/v1/jobs", ok([], { pagination: { page: 1, limit: 1, total: 0, totalPages: 0 } }));
    api.on("GET", "/v1/jobs/job_test1", ok(jobFixture()));
    const home = { XDG_CONFIG_HOME: env["XDG_CONFIG_HOME"]! };
    await runCli(["login", "--url", api.url, "--key", "sk_prj_saved"], { env: home });
    await runCli(["jobs", "get", "job_test1"], { env: home });
    expect(api.requests.at(-1)!.headers.authorization).toBe("Bearer sk_prj_saved");
  });

  it("MEDIA_JOBS_URL and MEDIA_JOBS_KEY override the saved configuration", async () => {
    const dir = path.join(env["XDG_CONFIG_HOME"]!, "media-jobs");
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "config.json"), JSON.stringify({ url: "http://127.0.0.1:9", key: "sk_prj_saved" }));
    api.on("GET", "/v1/jobs/job_test1", ok(jobFixture()));
    const r = await runCli(["jobs", "get", "job_test1"], { env });
    expect(r.code).toBe(0);
    expect(api.requests[0]!.headers.authorization).toBe("Bearer sk_prj_test");
  });

  it("without a login or the environment variables, a command exits 5 and says how to log in", async () => {
    const r = await runCli(["jobs", "get", "job_1"], { env: { XDG_CONFIG_HOME: env["XDG_CONFIG_HOME"]! } });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/media-jobs login/);
  });
});

describe("exit codes reflect the job's outcome", () => {
  it("wait: a completed job exits 0", async () => {
    api.on("GET", "/v1/jobs/job_test1", ...pollsUntil({ status: "processing", currentStage: "transcribe" }, { status: "completed" }));
    expect((await runCli(["jobs", "wait", "job_test1"], { env })).code).toBe(0);
  });

  it("wait: a failed job exits 1 and shows its error", async () => {
    api.on(
      "GET",
      "/v1/jobs/job_test1",
      ...pollsUntil({ status: "failed", error: { code: "duration_exceeded", message: "source is 3700 s" } }),
    );
    const r = await runCli(["jobs", "wait", "job_test1"], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/duration_exceeded: source is 3700 s/);
  });

  it("wait: a cancelled job exits 3", async () => {
    api.on("GET", "/v1/jobs/job_test1", ...pollsUntil({ status: "cancelling" }, { status: "cancelled" }));
    expect((await runCli(["jobs", "wait", "job_test1"], { env })).code).toBe(3);
  });

  it("wait: --timeout exits 4", async () => {
    api.on("GET", "/v1/jobs/job_test1", ok(jobFixture({ status: "processing" })));
    const r = await runCli(["jobs", "wait", "job_test1", "--timeout", "0.001"], { env });
    expect(r.code).toBe(4);
  });

  it("an API error exits 5 with the code, details and HTTP status on stderr", async () => {
    api.on(
      "GET",
      "/v1/jobs/job_nope",
      apiError(404, "notFound", "job not found: job_nope", [{ path: "jobId", issue: "notFound:job_nope" }]),
    );
    const r = await runCli(["jobs", "get", "job_nope"], { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/notFound \(HTTP 404\): job not found: job_nope\n {2}jobId: notFound:job_nope/);
  });

  it("submit --wait exits with the job's outcome", async () => {
    const [queued, failed] = jobStates({ status: "queued" }, { status: "failed", error: { code: "processing_failed", message: "x" } });
    api.on("POST", "/v1/jobs", ok(queued, {}, 201));
    api.on("GET", "/v1/jobs/job_test1", ok(failed));
    const r = await runCli(["jobs", "submit", "--connection", "stc_1", "--bucket", "media", "--source-key", "in/a.mp4", "--wait"], { env });
    expect(r.code).toBe(1);
  });
});

describe("--json output", () => {
  it("jobs get --json prints the Job object as JSON", async () => {
    const job = jobFixture({ status: "completed" });
    api.on("GET", "/v1/jobs/job_test1", ok(job));
    const r = await runCli(["jobs", "get", "job_test1", "--json"], { env });
    expect(JSON.parse(r.stdout)).toEqual(job);
  });

  it("jobs wait --json prints only the final Job on stdout", async () => {
    api.on("GET", "/v1/jobs/job_test1", ...pollsUntil({ status: "queued" }, { status: "completed" }));
    const r = await runCli(["jobs", "wait", "job_test1", "--json"], { env });
    expect(JSON.parse(r.stdout)).toMatchObject({ jobId: "job_test1", status: "completed" });
  });

  it("an API error with --json prints { error } on stdout", async () => {
    api.on("POST", "/v1/jobs/job_x/cancel", apiError(409, "conflict", "job job_x is completed and can no longer be cancelled"));
    const r = await runCli(["jobs", "cancel", "job_x", "--json"], { env });
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { status: 409, code: "conflict" } });
  });

  it("jobs list --json prints the page and its pagination", async () => {
    api.on("GET", "/v1/jobs", ok([jobFixture()], { pagination: { page: 1, limit: 20, total: 1, totalPages: 1 } }));
    const r = await runCli(["jobs", "list", "--json", "--status", "queued,processing"], { env });
    expect(JSON.parse(r.stdout)).toMatchObject({ data: [{ jobId: "job_test1" }], pagination: { total: 1 } });
    expect(api.requests[0]!.query.get("statuses")).toBe("queued,processing");
  });
});

describe("jobs submit", () => {
  it("the transcription flags become a transcription body, sent with an Idempotency-Key", async () => {
    api.on("POST", "/v1/jobs", ok(jobFixture(), {}, 201));
    await runCli(
      [
        "jobs",
        "submit",
        "--connection",
        "stc_1",
        "--bucket",
        "media",
        "--source-key",
        "in/a.mp4",
        "--language",
        "en",
        "--customer-job-ref",
        "ep-42",
      ],
      { env },
    );
    const req = api.requests[0]!;
    expect(JSON.parse(req.body)).toEqual({
      serviceType: "transcription",
      input: { sourceType: "s3_direct", connectionId: "stc_1", bucket: "media", sourceKey: "in/a.mp4", options: { language: "en" } },
      userMetadata: { customerJobRef: "ep-42" },
    });
    expect(req.headers["idempotency-key"]).toBeTruthy();
  });

  it("a body on stdin is sent as given, with the given --idempotency-key", async () => {
    api.on("POST", "/v1/jobs", ok(jobFixture({ serviceType: "metadata" }), {}, 201));
    const body = { serviceType: "metadata", input: { textSourceId: "txt_1" } };
    await runCli(["jobs", "submit", "-", "--idempotency-key", "run-9"], { env, stdin: JSON.stringify(body) });
    expect(JSON.parse(api.requests[0]!.body)).toEqual(body);
    expect(api.requests[0]!.headers["idempotency-key"]).toBe("run-9");
  });
});

describe("progress display", () => {
  it("off a terminal, wait prints one plain line per change on stderr", async () => {
    api.on(
      "GET",
      "/v1/jobs/job_test1",
      ...pollsUntil({ status: "queued" }, { status: "processing", currentStage: "transcribe" }, { status: "completed" }),
    );
    const r = await runCli(["jobs", "wait", "job_test1"], { env });
    const lines = r.stderr.trim().split("\n");
    expect(lines.map((l) => l.replace(/^\S+ /, ""))).toEqual([
      "job_test1 queued",
      "job_test1 processing transcribe",
      "job_test1 completed",
    ]);
  });

  it("on a terminal, wait redraws one line in place", async () => {
    api.on("GET", "/v1/jobs/job_test1", ...pollsUntil({ status: "processing", currentStage: "transcribe" }, { status: "completed" }));
    const r = await runCli(["jobs", "wait", "job_test1"], { env, tty: true });
    // The fixture job was created on a fixed date, so its elapsed time has an hours field by now.
    expect(r.stderr).toMatch(/\r\x1b\[2Kjob_test1 processing · transcribe · (\d+:)?\d\d:\d\d/);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});

describe("transcripts get", () => {
  const transcript = {
    transcriptionId: "txt_1",
    textSourceId: "txt_1",
    status: "completed",
    revision: 2,
    segments: [
      { id: 0, start: 0, end: 2.5, text: "Hello there." },
      { id: 1, start: 3, end: 5, text: "General Kenobi." },
    ],
  };
  const EXPORT = "/v1/transcriptions/txt_1/export";
  /** What the export route answers: the file in the format's content type, the revision it rendered. */
  const file = (body: string | Uint8Array, type: string, name = "talk.srt") => ({
    status: 200,
    body,
    headers: { "content-type": type, "content-disposition": `attachment; filename="${name}"`, "x-transcript-revision": "2" },
  });
  const SRT = "1\n00:00:00,000 --> 00:00:02,500\nHello there.\n\n2\n00:00:03,000 --> 00:00:05,000\nGeneral Kenobi.\n";

  it("--format srt prints the API's export of the current segments", async () => {
    api.on("GET", EXPORT, file(SRT, "application/x-subrip; charset=utf-8"));
    const r = await runCli(["transcripts", "get", "txt_1", "--format", "srt"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(SRT);
    expect(Object.fromEntries(api.requests[0]!.query)).toEqual({ format: "srt", layer: "segments" });
  });

  it("--format vtt starts with the WEBVTT header", async () => {
    api.on("GET", EXPORT, file("WEBVTT\n\n1\n00:00:00.000 --> 00:00:02.500\nHello there.\n", "text/vtt; charset=utf-8"));
    expect((await runCli(["transcripts", "get", "txt_1", "--format", "vtt"], { env })).stdout).toMatch(/^WEBVTT\n\n1\n00:00:00.000 --> /);
  });

  it("--format txt prints one segment per line", async () => {
    api.on("GET", EXPORT, file("Hello there.\nGeneral Kenobi.\n", "text/plain; charset=utf-8"));
    expect((await runCli(["transcripts", "get", "txt_1", "--format", "txt"], { env })).stdout).toBe("Hello there.\nGeneral Kenobi.\n");
  });

  it("--json wraps the rendered subtitles with the transcript's revision", async () => {
    api.on("GET", EXPORT, file(SRT, "application/x-subrip; charset=utf-8"));
    const r = await runCli(["transcripts", "get", "txt_1", "--format", "srt", "--json"], { env });
    expect(JSON.parse(r.stdout)).toMatchObject({
      transcriptionId: "txt_1",
      format: "srt",
      revision: 2,
      content: expect.stringMatching(/^1\n/),
    });
  });

  it("--format docx --output writes the Word file's bytes as the API sent them", async () => {
    const bytes = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0xff, 0xfe, 0x00, 0x80]);
    api.on("GET", EXPORT, file(bytes, "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "talk.docx"));
    const out = path.join(env["XDG_CONFIG_HOME"]!, "talk.docx");
    const r = await runCli(["transcripts", "get", "txt_1", "--format", "docx", "--output", out], { env });
    expect(r.code).toBe(0);
    expect(new Uint8Array(await readFile(out))).toEqual(bytes);
    expect(api.requests[0]!.query.get("format")).toBe("docx");
  });

  it("--format docx without --output is a usage error: exit 2, and nothing is fetched", async () => {
    const r = await runCli(["transcripts", "get", "txt_1", "--format", "docx"], { env });
    expect(r.code).toBe(2);
    expect(api.requests).toEqual([]);
  });

  it("--format md --layer raw --no-speakers asks the export for the raw layer without speaker names", async () => {
    api.on("GET", EXPORT, file("# talk\n", "text/markdown; charset=utf-8", "talk.md"));
    const r = await runCli(["transcripts", "get", "txt_1", "--format", "md", "--layer", "raw", "--no-speakers"], { env });
    expect(r.stdout).toBe("# talk\n");
    expect(Object.fromEntries(api.requests[0]!.query)).toEqual({ format: "md", layer: "raw", speakers: "false" });
  });

  it("--format json prints the transcript record", async () => {
    api.on("GET", "/v1/transcriptions/txt_1", ok(transcript));
    expect(JSON.parse((await runCli(["transcripts", "get", "txt_1", "--format", "json"], { env })).stdout)).toEqual(transcript);
  });

  it("an export the API refuses (a transcript not completed) is an API error: exit 5", async () => {
    api.on(
      "GET",
      EXPORT,
      apiError(422, "validationError", "transcription txt_1 is pending", [{ path: "transcriptionId", issue: "jobNotCompleted" }]),
    );
    expect((await runCli(["transcripts", "get", "txt_1", "--format", "srt"], { env })).code).toBe(5);
  });
});

describe("search", () => {
  it("sends the query and options, and --json prints the results", async () => {
    api.on("POST", "/v1/catalog/search", (req) =>
      ok({ query: JSON.parse(req.body).query, mode: "hybrid", results: [], groups: [] }, { collection: "svc_proj_prj_1" }),
    );
    const r = await runCli(["search", "how long does the dough rise", "--limit", "5", "--json"], { env });
    expect(JSON.parse(api.requests[0]!.body)).toEqual({ query: "how long does the dough rise", limit: 5 });
    expect(JSON.parse(r.stdout)).toMatchObject({ results: [], metadata: { collection: "svc_proj_prj_1" } });
  });
});

describe("read-your-writes across runs", () => {
  const BOOKMARK = "00000011-00000001-00004c6d-bbbb";
  const withBookmark = { status: 200, body: { data: jobFixture(), metadata: {} }, headers: { "x-d1-bookmark": BOOKMARK } };

  it("a command sends the bookmark the previous run was answered, for the same API URL", async () => {
    api.on("GET", "/v1/jobs/job_test1", withBookmark, ok(jobFixture()));
    await runCli(["jobs", "get", "job_test1"], { env });
    await runCli(["jobs", "get", "job_test1"], { env });
    expect(api.requests.map((r) => r.headers["x-d1-bookmark"])).toEqual([undefined, BOOKMARK]);
  });

  it("another API URL is not sent the saved bookmark", async () => {
    api.on("GET", "/v1/jobs/job_test1", withBookmark);
    await runCli(["jobs", "get", "job_test1"], { env });
    const other = await startFakeApi();
    try {
      other.on("GET", "/v1/jobs/job_test1", ok(jobFixture()));
      await runCli(["jobs", "get", "job_test1"], { env: { ...env, MEDIA_JOBS_URL: other.url } });
      expect(other.requests[0]!.headers["x-d1-bookmark"]).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});
