import type { S3Client } from "../contracts/s3-client";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { SearchHit } from "../contracts/catalog";
import type { Job, ProgressEntry } from "../contracts/job";
import type { LeasedTask } from "../contracts/runner-protocol";
import type { Segment, TranscriptionResult } from "../contracts/transcript";
import { apiCall, type BootstrapResult } from "../scripts/lib/api-client";
import { benchTenant } from "./lib";
import { LOCAL_ADMIN_SECRET, type Stack } from "../scripts/lib/stack";

/**
 * Shared by the understanding and search benchmarks: the labelled corpus in bench/data (CC0, see its
 * README), transcripts made from it, and a tenant on a fresh local stack that gets completed
 * transcriptions without speech recognition — the bench plays the runner for the `transcription`
 * step over the real runner protocol (lease, complete), as the Workers tests do, so every later step
 * (metadata, summarization, indexer, search) runs on the real stack against real transcript records.
 */

export interface Passage {
  id: string;
  topic: string;
  text: string;
}

export interface Question {
  answer: string;
  kind: "lexical" | "paraphrased";
  query: string;
}

const DATA = path.join(import.meta.dirname, "data");
export const loadPassages = (): Passage[] => JSON.parse(readFileSync(path.join(DATA, "search-passages.json"), "utf8")) as Passage[];
export const loadQuestions = (): Question[] => JSON.parse(readFileSync(path.join(DATA, "search-questions.json"), "utf8")) as Question[];

export const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** A passage's sentences, in order (its text ends every sentence with . ! or ?). */
export const sentencesOf = (text: string): string[] => text.split(/(?<=[.!?])\s+/).filter(Boolean);

/** Spoken English at 150 words a minute. */
export const SECONDS_PER_WORD = 0.4;

/** One segment per sentence, back to back, each as long as its words take at `secondsPerWord`. */
export function segmentsOf(sentences: readonly string[], secondsPerWord = SECONDS_PER_WORD): Segment[] {
  let at = 0;
  return sentences.map((text, id) => {
    const start = at;
    at += wordCount(text) * secondsPerWord;
    return { id, start: round3(start), end: round3(at), text };
  });
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** A small deterministic PRNG (mulberry32), so generated transcripts are the same on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SearchAnswer {
  results: SearchHit[];
  metadata: { tookMs?: number; candidates?: { dense: number; sparse: number } } & Record<string, unknown>;
}

export interface BenchTenant {
  stack: Stack;
  tenant: BootstrapResult;
  /** The tenant's bucket, through its connection's credentials. */
  s3: S3Client;
  api<T>(method: string, p: string, body?: unknown): Promise<T>;
  admin<T>(method: string, p: string, body?: unknown): Promise<T>;
  /** Creates one completed transcription per entry (the bench plays the runner); returns their `txt_` ids in order. */
  transcribe(transcripts: ReadonlyArray<readonly Segment[]>, opts?: { concurrency?: number }): Promise<string[]>;
  createJob(serviceType: string, input: Record<string, unknown>): Promise<Job>;
  /** Polls every `pollMs` (100) until the job has ended. */
  waitForJob(jobId: string, timeoutMs?: number, pollMs?: number): Promise<Job>;
  /** The job's progress entries (through a console session: the route is console-only). */
  progress(jobId: string): Promise<ProgressEntry[]>;
  search(body: Record<string, unknown>): Promise<SearchAnswer>;
}

export async function openTenant(stack: Stack, name = "bench"): Promise<BenchTenant> {
  const base = stack.apiBaseUrl;
  const { tenant, s3 } = await benchTenant(stack, name);
  const api = async <T>(method: string, p: string, body?: unknown) => (await apiCall<T>(base, method, p, tenant.projectKey, body)).data;
  const admin = async <T>(method: string, p: string, body?: unknown) =>
    (await apiCall<T>(base, method, `/admin/v1${p}`, LOCAL_ADMIN_SECRET, body)).data;
  const runner = async <T>(p: string, body: unknown) => (await apiCall<T>(base, "POST", `/runner/v1${p}`, stack.runnerToken, body)).data;
  let consoleKey: string | undefined;
  let sources = 0;

  const createJob = (serviceType: string, input: Record<string, unknown>) => api<Job>("POST", "/v1/jobs", { serviceType, input });

  const waitForJob = async (jobId: string, timeoutMs = 600_000, pollMs = 100): Promise<Job> => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const job = await api<Job>("GET", `/v1/jobs/${jobId}`);
      if (job.status === "completed") return job;
      if (job.status === "failed" || job.status === "cancelled")
        throw new Error(`job ${jobId} (${job.serviceType}) ${job.status}: ${JSON.stringify(job.error ?? job.lastError)}`);
      if (Date.now() > end) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  };

  /** Creates transcription jobs and completes each leased `transcription` task with its segments. */
  const transcribe: BenchTenant["transcribe"] = async (transcripts, opts = {}) => {
    const ids: string[] = [];
    const concurrency = opts.concurrency ?? 4;
    for (let from = 0; from < transcripts.length; from += concurrency) {
      const part = transcripts.slice(from, from + concurrency);
      const jobs = await Promise.all(
        part.map(async () => {
          const sourceKey = `bench/speech-${++sources}.mp4`;
          await s3.putObject(tenant.bucket, sourceKey, new TextEncoder().encode("stand-in media: the bench plays the runner"), "video/mp4");
          return createJob("transcription", {
            sourceType: "s3_direct",
            connectionId: tenant.connectionId,
            bucket: tenant.bucket,
            sourceKey,
            options: { language: "en" },
          });
        }),
      );
      const segmentsOfJob = new Map(jobs.map((j, i) => [j.jobId, part[i]!]));
      let left = jobs.length;
      while (left > 0) {
        const { task } = await runner<{ task: LeasedTask | null }>("/lease", {
          runnerId: "bench-transcriber",
          handlers: ["transcription"],
          waitSeconds: 5,
        });
        if (!task) continue;
        const segments = segmentsOfJob.get(task.jobId);
        if (!segments) throw new Error(`leased a task of another job: ${task.jobId}`);
        const result: TranscriptionResult = {
          language: "en",
          durationSec: segments.at(-1)?.end ?? 0,
          engine: "bench",
          model: "corpus-text",
          segments: [...segments],
          visualChunks: [],
          outputKeys: task.input["resolvedOutputKeys"] as TranscriptionResult["outputKeys"],
        };
        await runner(`/tasks/${task.taskId}/complete`, { leaseToken: task.leaseToken, result });
        left--;
      }
      for (const j of jobs) await waitForJob(j.jobId, 60_000);
      ids.push(...jobs.map((j) => String(j.input["textSourceId"])));
    }
    return ids;
  };

  const progress = async (jobId: string): Promise<ProgressEntry[]> => {
    consoleKey ??= (
      await apiCall<{ secret: string }>(base, "POST", "/v1/console/sessions", tenant.workspaceKey, {
        projectId: tenant.projectId,
        userHandle: "bench",
      })
    ).data.secret;
    return (await apiCall<{ progress: ProgressEntry[] }>(base, "GET", `/v1/jobs/${jobId}/progress`, consoleKey)).data.progress;
  };

  const search = async (body: Record<string, unknown>): Promise<SearchAnswer> => {
    const res = await apiCall<{ results: SearchHit[] }>(base, "POST", "/v1/catalog/search", tenant.projectKey, body);
    return { results: res.data.results, metadata: res.metadata as SearchAnswer["metadata"] };
  };

  return { stack, tenant, s3, api, admin, transcribe, createJob, waitForJob, progress, search };
}

/** Milliseconds each stage took (started → completed), summed over repeats of the stage (one per transcript, say). */
export function stageDurations(progress: readonly ProgressEntry[]): Map<string, number> {
  const open = new Map<string, number>();
  const total = new Map<string, number>();
  for (const e of progress) {
    const at = Date.parse(e.at);
    if (e.event === "started") open.set(e.stage, at);
    else if (e.event === "completed" && open.has(e.stage)) {
      total.set(e.stage, (total.get(e.stage) ?? 0) + at - open.get(e.stage)!);
      open.delete(e.stage);
    }
  }
  return total;
}

/** A job's processing time on the server's clock: first processing to completion. */
export const processingMs = (job: Job): number => Date.parse(job.completedAt ?? "") - Date.parse(job.startedAt ?? "");
