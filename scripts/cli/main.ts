import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { createWriteStream } from "node:fs";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import {
  downloadOutputs,
  MediaJobs,
  MediaJobsError,
  WaitTimeoutError,
  type CreateJobRequest,
  type Job,
  type JobFilters,
  type JobStatus,
  type ServiceType,
  type Sleep,
} from "../../contracts/client";
import { S3Client } from "../../contracts/s3-client";
import { JOB_STATUSES, SERVICE_TYPES } from "../../contracts/service-types";
import { SEARCH_MODES } from "../../contracts/catalog";
import { toFullText, toSrt, toVtt } from "../../gpu-runner/services/transcription/subtitles";
import { configPath, readConfigFile, resolveConfig, writeConfigFile } from "./config";
import { EXIT, EXIT_CODES_HELP, exitForJob, UsageError, type ExitCode } from "./exit-codes";
import { formatJob, formatJobTable, formatSearch, writeJson } from "./output";
import { createProgressDisplay, stageFraction, type OutStream } from "./progress";

/**
 * `media-jobs`, the command-line tool over the client in contracts/client. `run` takes its streams,
 * environment and fetch as arguments so tests drive it in-process; bin.mjs passes the real ones.
 */
export interface CliIo {
  stdout: OutStream;
  stderr: OutStream;
  stdin: AsyncIterable<string | Uint8Array> & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
  sleep?: Sleep;
}

interface Ctx {
  io: CliIo;
  setExit(code: ExitCode): void;
}

const positiveInt = (label: string) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${label} must be a whole number of at least 1`);
  return Number(value);
};
const seconds = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("must be a number of seconds above 0");
  return n;
};
const csvOf =
  <T extends string>(allowed: readonly T[], label: string) =>
  (value: string): T[] => {
    const items = value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = items.filter((s) => !allowed.includes(s as T));
    if (bad.length) throw new InvalidArgumentError(`unknown ${label} ${bad.join(", ")} (one of ${allowed.join(", ")})`);
    return items as T[];
  };

async function readAll(stream: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** The first line only: on a terminal the user types the key and presses Enter, no Ctrl-D needed. */
async function readLine(stream: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    if (text.includes("\n")) break;
  }
  return text.split("\n")[0] ?? "";
}

async function client(io: CliIo): Promise<{ mj: MediaJobs; key: string }> {
  const { url, key } = await resolveConfig(io.env);
  return {
    mj: new MediaJobs({ baseUrl: url, apiKey: key, ...(io.fetch ? { fetch: io.fetch } : {}), ...(io.sleep ? { sleep: io.sleep } : {}) }),
    key,
  };
}

const jsonOption = () => new Option("--json", "print machine-readable JSON on stdout");

interface WaitFlags {
  timeout?: number;
  interval?: number;
  json?: boolean;
}

/** Polls with a live display on stderr (a redrawn line on a terminal, plain lines otherwise; none for --json off a terminal). */
async function waitForJob(ctx: Ctx, mj: MediaJobs, key: string, jobId: string, flags: WaitFlags): Promise<Job> {
  const { io } = ctx;
  const display = flags.json && !io.stderr.isTTY ? null : createProgressDisplay(io.stderr);
  // Only console sessions may read the stage timeline, where a stage could report its completed share.
  const canReadProgress = key.startsWith("sk_con_");
  try {
    return await mj.jobs.wait(jobId, {
      intervalMs: flags.interval ?? 1000,
      ...(flags.timeout !== undefined ? { timeoutMs: flags.timeout * 1000 } : {}),
      onUpdate: (job) => {
        display?.update(job);
        if (display && canReadProgress && job.currentStage) {
          mj.jobs.progress(job.jobId).then(
            (view) => display.update(job, stageFraction(view)),
            () => undefined,
          );
        }
      },
    });
  } finally {
    display?.stop();
  }
}

function reportJob(ctx: Ctx, job: Job, json: boolean | undefined): void {
  if (json) writeJson(ctx.io.stdout, job);
  else ctx.io.stdout.write(formatJob(job));
}

function transcriptionBody(flags: Record<string, string | undefined>): CreateJobRequest {
  const missing = (["connection", "bucket", "sourceKey"] as const).filter((k) => !flags[k]);
  if (missing.length) {
    throw new UsageError(
      `give a JSON body (a file or -) or the transcription flags; missing: ${missing.map((m) => `--${m.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(", ")}`,
    );
  }
  return {
    serviceType: "transcription",
    input: {
      sourceType: "s3_direct",
      connectionId: flags["connection"]!,
      bucket: flags["bucket"]!,
      sourceKey: flags["sourceKey"]!,
      ...(flags["outputPrefix"] ? { outputPrefix: flags["outputPrefix"] } : {}),
      ...(flags["language"] ? { options: { language: flags["language"] } } : {}),
    },
  };
}

function jobsCommand(ctx: Ctx): Command {
  const { io } = ctx;
  const jobs = new Command("jobs").description("submit, inspect, cancel and wait for jobs");

  jobs
    .command("submit")
    .description("create a job from a JSON body (a file, or - for stdin), or a transcription from flags")
    .argument("[file]", "the POST /v1/jobs body as JSON; - reads stdin")
    .option("--connection <id>", "transcription: storage connection id")
    .option("--bucket <name>", "transcription: bucket of the source")
    .option("--source-key <key>", "transcription: object key of the video")
    .option("--language <code>", "transcription: language hint, e.g. en")
    .option("--output-prefix <prefix>", "transcription: where the four output files go")
    .option("--customer-job-ref <ref>", "userMetadata.customerJobRef")
    .option("--webhook-url <url>", "per-job webhook (https)")
    .option("--idempotency-key <key>", "reuse to make a retried submit return the same job (default: a fresh UUID)")
    .option("--wait", "wait for the job to finish; the exit code reflects its outcome")
    .option("--timeout <seconds>", "with --wait: give up after this long (exit 4)", seconds)
    .option("--interval <ms>", "with --wait: first poll interval", positiveInt("--interval"))
    .addOption(jsonOption())
    .action(async (file: string | undefined, flags: Record<string, string | undefined> & WaitFlags & { wait?: boolean }) => {
      const transcriptionFlags = ["connection", "bucket", "sourceKey", "language", "outputPrefix"].filter((k) => flags[k] !== undefined);
      if (file !== undefined && transcriptionFlags.length)
        throw new UsageError("give either a JSON body or the transcription flags, not both");
      let body: CreateJobRequest;
      if (file !== undefined) {
        const text = file === "-" ? await readAll(io.stdin) : await readFile(file, "utf8");
        try {
          body = JSON.parse(text) as CreateJobRequest;
        } catch (err) {
          throw new UsageError(`${file === "-" ? "stdin" : file} is not JSON: ${(err as Error).message}`);
        }
      } else body = transcriptionBody(flags);
      if (flags["customerJobRef"]) body.userMetadata = { ...(body.userMetadata ?? {}), customerJobRef: flags["customerJobRef"] };
      if (flags["webhookUrl"]) body.webhookUrl = flags["webhookUrl"];

      const { mj, key } = await client(io);
      const job = await mj.jobs.create(body, flags["idempotencyKey"] ? { idempotencyKey: flags["idempotencyKey"] } : {});
      if (!flags.wait) return reportJob(ctx, job, flags.json);
      if (!flags.json) io.stderr.write(`submitted ${job.jobId}\n`);
      const done = await waitForJob(ctx, mj, key, job.jobId, flags);
      reportJob(ctx, done, flags.json);
      ctx.setExit(exitForJob(done));
    });

  jobs
    .command("get")
    .description("show a job")
    .argument("<jobId>")
    .addOption(jsonOption())
    .action(async (jobId: string, flags: { json?: boolean }) => {
      const { mj } = await client(io);
      reportJob(ctx, await mj.jobs.get(jobId), flags.json);
    });

  jobs
    .command("list")
    .description("list the project's jobs, newest first")
    .option("--status <statuses>", `comma-separated: ${JOB_STATUSES.join(", ")}`, csvOf(JOB_STATUSES, "status"))
    .option("--service <types>", `comma-separated: ${SERVICE_TYPES.join(", ")}`, csvOf(SERVICE_TYPES, "service type"))
    .option("--customer-job-ref <ref>", "exact userMetadata.customerJobRef")
    .option("--search <text>", "substring of the source or input")
    .addOption(new Option("--sort <field>", "sort field").choices(["jobId", "service", "status", "user", "created"]))
    .addOption(new Option("--sort-dir <dir>", "sort direction").choices(["asc", "desc"]))
    .option("--limit <n>", "page size, 1-100", positiveInt("--limit"))
    .option("--page <n>", "page number", positiveInt("--page"))
    .option("--all", "every page")
    .addOption(jsonOption())
    .action(
      async (flags: {
        status?: JobStatus[];
        service?: ServiceType[];
        customerJobRef?: string;
        search?: string;
        sort?: JobFilters["sort"];
        sortDir?: JobFilters["sortDir"];
        limit?: number;
        page?: number;
        all?: boolean;
        json?: boolean;
      }) => {
        if (flags.limit !== undefined && flags.limit > 100) throw new UsageError("--limit must be at most 100");
        const filters: JobFilters = {
          ...(flags.status ? { statuses: flags.status } : {}),
          ...(flags.service ? { serviceTypes: flags.service } : {}),
          ...(flags.customerJobRef ? { customerJobRef: flags.customerJobRef } : {}),
          ...(flags.search ? { input: flags.search } : {}),
          ...(flags.sort ? { sort: flags.sort } : {}),
          ...(flags.sortDir ? { sortDir: flags.sortDir } : {}),
        };
        const { mj } = await client(io);
        if (flags.all) {
          const all: Job[] = [];
          for await (const job of mj.jobs.listAll(filters, flags.limit ? { limit: flags.limit } : {})) all.push(job);
          if (flags.json) writeJson(io.stdout, { data: all, pagination: { total: all.length } });
          else io.stdout.write(formatJobTable(all));
          return;
        }
        const page = await mj.jobs.list(filters, {
          ...(flags.page ? { page: flags.page } : {}),
          ...(flags.limit ? { limit: flags.limit } : {}),
        });
        if (flags.json) return writeJson(io.stdout, page);
        io.stdout.write(formatJobTable(page.data));
        const p = page.pagination;
        io.stderr.write(`page ${p.page} of ${p.totalPages} (${p.total} jobs)\n`);
      },
    );

  jobs
    .command("cancel")
    .description("cancel a job (a processing job stops after its current stage)")
    .argument("<jobId>")
    .addOption(jsonOption())
    .action(async (jobId: string, flags: { json?: boolean }) => {
      const { mj } = await client(io);
      reportJob(ctx, await mj.jobs.cancel(jobId), flags.json);
    });

  jobs
    .command("wait")
    .description("wait until the job completes, fails or is cancelled; the exit code says which")
    .argument("<jobId>")
    .option("--timeout <seconds>", "give up after this long (exit 4)", seconds)
    .option("--interval <ms>", "first poll interval (it grows while nothing changes)", positiveInt("--interval"))
    .addOption(jsonOption())
    .action(async (jobId: string, flags: WaitFlags) => {
      const { mj, key } = await client(io);
      const job = await waitForJob(ctx, mj, key, jobId, flags);
      reportJob(ctx, job, flags.json);
      ctx.setExit(exitForJob(job));
    });
  return jobs;
}

function transcriptsCommand(ctx: Ctx): Command {
  const { io } = ctx;
  const cmd = new Command("transcripts").description("read transcripts");
  cmd
    .command("get")
    .description("print a transcript as SRT, WebVTT, plain text or the JSON record")
    .argument("<transcriptionId>", "the txt_ id (resultSummary.textSourceId)")
    .addOption(new Option("--format <format>", "output format").choices(["srt", "vtt", "txt", "json"]).default("txt"))
    .addOption(
      new Option("--layer <layer>", "which layer: the current (edited) segments, the glossary-applied or the raw engine output")
        .choices(["segments", "glossary", "raw"])
        .default("segments"),
    )
    .option("-o, --output <file>", "write to a file instead of stdout")
    .addOption(jsonOption())
    .action(
      async (
        id: string,
        flags: { format: "srt" | "vtt" | "txt" | "json"; layer: "segments" | "glossary" | "raw"; output?: string; json?: boolean },
      ) => {
        const { mj } = await client(io);
        const record = await mj.transcriptions.get(id, flags.format === "json" ? {} : { layers: [flags.layer] });
        if (record.status !== "completed" && flags.format !== "json")
          throw new MediaJobsError({ status: 0, code: "notCompleted", message: `transcription ${id} is ${record.status}` });
        // Rendered here from the API's segments with the runner's own writers: the same cues as the files in the bucket, plus any later edits.
        const segments = record[flags.layer] ?? [];
        const content =
          flags.format === "json"
            ? JSON.stringify(record, null, 2) + "\n"
            : flags.format === "srt"
              ? toSrt(segments)
              : flags.format === "vtt"
                ? toVtt(segments)
                : toFullText(segments);
        if (flags.output) {
          await writeFile(flags.output, content);
          if (flags.json)
            writeJson(io.stdout, { transcriptionId: id, format: flags.format, file: flags.output, bytes: Buffer.byteLength(content) });
          else io.stderr.write(`wrote ${flags.output}\n`);
          return;
        }
        if (flags.json)
          writeJson(
            io.stdout,
            flags.format === "json"
              ? record
              : { transcriptionId: id, format: flags.format, layer: flags.layer, revision: record.revision, content },
          );
        else io.stdout.write(content);
      },
    );
  return cmd;
}

function s3FromFlags(env: CliIo["env"], flags: { s3Endpoint?: string; s3Region?: string; pathStyle?: boolean }): S3Client {
  const endpoint = flags.s3Endpoint ?? env["MEDIA_JOBS_S3_ENDPOINT"] ?? env["AWS_ENDPOINT_URL_S3"] ?? env["AWS_ENDPOINT_URL"];
  const accessKeyId = env["AWS_ACCESS_KEY_ID"];
  const secretAccessKey = env["AWS_SECRET_ACCESS_KEY"];
  if (!endpoint || !accessKeyId || !secretAccessKey) {
    throw new UsageError(
      "clips live in your bucket: give --s3-endpoint (or MEDIA_JOBS_S3_ENDPOINT) and set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    );
  }
  return new S3Client({
    endpoint,
    region: flags.s3Region ?? env["AWS_REGION"] ?? "us-east-1",
    forcePathStyle: flags.pathStyle ?? env["MEDIA_JOBS_S3_PATH_STYLE"] === "true",
    accessKeyId,
    secretAccessKey,
  });
}

function clipsCommand(ctx: Ctx): Command {
  const { io } = ctx;
  const cmd = new Command("clips").description("clip generations and their files");
  cmd
    .command("list")
    .description("list a clip generation's clips, best first")
    .argument("<clipGenerationId>")
    .addOption(jsonOption())
    .action(async (id: string, flags: { json?: boolean }) => {
      const { mj } = await client(io);
      const clips = await mj.clips.list(id);
      if (flags.json) return writeJson(io.stdout, clips);
      for (const c of clips)
        io.stdout.write(
          `${String(c.index).padStart(2)}. ${c.start.toFixed(1)}-${c.end.toFixed(1)}s  score ${c.score.toFixed(2)}  ${c.title}\n    ${c.videoKey}\n`,
        );
    });
  cmd
    .command("download")
    .description("download each clip's MP4 and poster from your bucket")
    .argument("<clipGenerationId>")
    .requiredOption("--dir <dir>", "where to save the files")
    .option(
      "--s3-endpoint <url>",
      "your bucket's S3 endpoint (or MEDIA_JOBS_S3_ENDPOINT); credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY",
    )
    .option("--s3-region <region>", "S3 region (or AWS_REGION; default us-east-1)")
    .option("--path-style", "path-style bucket URLs (MinIO, local stores)")
    .addOption(jsonOption())
    .action(async (id: string, flags: { dir: string; s3Endpoint?: string; s3Region?: string; pathStyle?: boolean; json?: boolean }) => {
      const s3 = s3FromFlags(io.env, flags);
      const { mj } = await client(io);
      const objects = await mj.clips.outputs(id);
      await mkdir(flags.dir, { recursive: true });
      const saved: Array<{ key: string; file: string; bytes: number }> = [];
      await downloadOutputs(s3, objects, async (object, res) => {
        const file = path.join(flags.dir, object.fileName);
        if (!res.body) throw new Error(`empty body for ${object.key}`);
        await pipeline(Readable.fromWeb(res.body as WebReadableStream), createWriteStream(file));
        saved.push({ key: object.key, file, bytes: (await stat(file)).size });
        if (!flags.json) io.stdout.write(`${file}\n`);
      });
      if (flags.json) writeJson(io.stdout, saved);
    });
  return cmd;
}

function searchCommand(ctx: Ctx): Command {
  const { io } = ctx;
  return new Command("search")
    .description("semantic search over the project's indexed transcripts")
    .argument("<query>")
    .option("--limit <n>", "results, 1-50", positiveInt("--limit"))
    .addOption(new Option("--mode <mode>", "ranking").choices([...SEARCH_MODES]))
    .option("--transcript <ids>", "only these txt_ ids, comma-separated", (v: string) => v.split(",").filter(Boolean))
    .option("--language <code>", "only transcripts in this language")
    .addOption(jsonOption())
    .action(
      async (
        query: string,
        flags: { limit?: number; mode?: (typeof SEARCH_MODES)[number]; transcript?: string[]; language?: string; json?: boolean },
      ) => {
        const { mj } = await client(io);
        const res = await mj.catalog.search(query, {
          ...(flags.limit ? { limit: flags.limit } : {}),
          ...(flags.mode ? { mode: flags.mode } : {}),
          ...(flags.transcript ? { textSourceIds: flags.transcript } : {}),
          ...(flags.language ? { language: flags.language } : {}),
        });
        if (flags.json) writeJson(io.stdout, res);
        else io.stdout.write(formatSearch(res));
      },
    );
}

function loginCommand(ctx: Ctx): Command {
  const { io } = ctx;
  return new Command("login")
    .description("save the API URL and key (0600) for later commands; MEDIA_JOBS_URL / MEDIA_JOBS_KEY override them")
    .option("--url <url>", "API base URL, e.g. http://127.0.0.1:8787")
    .option("--key <key>", "project API key (sk_prj_…); read from stdin when omitted")
    .option("--no-verify", "save without checking the key against the API")
    .addOption(jsonOption())
    .action(async (flags: { url?: string; key?: string; verify: boolean; json?: boolean }) => {
      const url = flags.url ?? (await readConfigFile(io.env)).url;
      if (!url) throw new UsageError("--url is required on the first login");
      try {
        new URL(url);
      } catch {
        throw new UsageError(`--url is not a URL: ${url}`);
      }
      if (!flags.key && io.stdin.isTTY) io.stderr.write("API key: ");
      const key = (flags.key ?? (await readLine(io.stdin))).trim();
      if (!key) throw new UsageError("no API key given (--key, or one line on stdin)");
      if (flags.verify) {
        const mj = new MediaJobs({ baseUrl: url, apiKey: key, maxRetries: 0, ...(io.fetch ? { fetch: io.fetch } : {}) });
        try {
          await mj.jobs.list({}, { limit: 1 });
        } catch (err) {
          // 403: the key is real but may not list jobs; that is still a good login.
          if (!(err instanceof MediaJobsError && err.status === 403)) throw err;
        }
      }
      const file = await writeConfigFile(io.env, { url, key });
      if (flags.json) writeJson(io.stdout, { url, configPath: file });
      else io.stderr.write(`logged in to ${url}; saved to ${file}\n`);
    });
}

export function buildProgram(ctx: Ctx): Command {
  const { io } = ctx;
  const program = new Command("media-jobs")
    .description(`media-jobs command-line tool. Config: ${configPath(io.env)} (or MEDIA_JOBS_URL and MEDIA_JOBS_KEY).`)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError("(add --help for usage)")
    .addHelpText("after", EXIT_CODES_HELP);
  // Subcommands copy these settings (exitOverride, output) when added, so they are set first.
  for (const make of [loginCommand, jobsCommand, transcriptsCommand, clipsCommand, searchCommand])
    program.addCommand(inherit(program, make(ctx)));
  return program;
}

/** `addCommand` does not copy the parent's settings onto a ready-made command: do it for the whole subtree. */
function inherit(parent: Command, cmd: Command): Command {
  cmd.copyInheritedSettings(parent);
  for (const sub of cmd.commands) inherit(cmd, sub);
  return cmd;
}

function reportError(io: CliIo, argv: readonly string[], err: unknown): ExitCode {
  const json = argv.includes("--json");
  const fail = (code: ExitCode, error: Record<string, unknown>, text: string) => {
    if (json) writeJson(io.stdout, { error });
    io.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
    return code;
  };
  if (err instanceof CommanderError) {
    // Commander has printed the message or the help already.
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof UsageError) return fail(EXIT.usage, { code: "usage", message: err.message }, `error: ${err.message}`);
  if (err instanceof WaitTimeoutError) {
    if (json) writeJson(io.stdout, err.job);
    io.stderr.write(`error: ${err.message}\n`);
    return EXIT.timedOut;
  }
  if (err instanceof MediaJobsError) {
    const details = err.details.map((d) => `\n  ${d.path}: ${d.issue}`).join("");
    const status = err.status ? ` (HTTP ${err.status})` : "";
    const request = err.requestId ? `\n  request id: ${err.requestId}` : "";
    return fail(
      EXIT.api,
      { status: err.status, code: err.code, message: err.message, details: err.details, requestId: err.requestId },
      `error: ${err.code}${status}: ${err.message}${details}${request}`,
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return fail(EXIT.failed, { code: "localError", message }, `error: ${message}`);
}

/** Runs the tool; resolves to its exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  let exit: ExitCode = EXIT.ok;
  const program = buildProgram({ io, setExit: (code) => (exit = code) });
  try {
    await program.parseAsync([...argv], { from: "user" });
    return exit;
  } catch (err) {
    return reportError(io, argv, err);
  }
}
