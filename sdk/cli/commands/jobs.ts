import { Command, Option } from "commander";
import { readFile } from "node:fs/promises";
import type { CreateJobRequest, Job, JobFilters, JobStatus, MediaJobs, ServiceType } from "../../client";
import { JOB_STATUSES, SERVICE_TYPES } from "../../../contracts/service-types";
import { client, csvOf, isConsoleSession, jsonOption, positiveInt, readAll, seconds, type Ctx } from "../context";
import { exitForJob, UsageError } from "../exit-codes";
import { formatJob, formatJobTable, writeJson } from "../output";
import { createProgressDisplay, stageFraction } from "../progress";

/** `media-jobs jobs submit|get|list|cancel|wait`. */

export interface WaitFlags {
  timeout?: number;
  interval?: number;
  json?: boolean;
}

/** Polls with a live display on stderr (a redrawn line on a terminal, plain lines otherwise; none for --json off a terminal). */
async function waitForJob(ctx: Ctx, mj: MediaJobs, key: string, jobId: string, flags: WaitFlags): Promise<Job> {
  const { io } = ctx;
  const display = flags.json && !io.stderr.isTTY ? null : createProgressDisplay(io.stderr);
  // Only console sessions may read the stage timeline, where a stage could report its completed share.
  const canReadProgress = isConsoleSession(key);
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

export function jobsCommand(ctx: Ctx): Command {
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
