import { parse as parseDisposition } from "content-disposition";
import { TRANSCRIPT_REVISION_HEADER, type ExportFormat, type ExportLayer } from "../../contracts/transcript-exports";
import { clipOutputs, type OutputObject } from "./downloads";
import { JobsResource } from "./jobs";
import { Transport, type Sleep } from "./transport";
import type { ClipGenerationRecord, SearchInput, SearchResponse, TranscriptFile, TranscriptLayer, TranscriptRecord } from "./types";
import { verifyWebhook, type HeaderSource, type VerifyOptions } from "./webhooks";
import { WorkflowsResource } from "./workflows";

export interface MediaJobsOptions {
  /** e.g. `https://media.example.com` or `http://127.0.0.1:8787`; routes are under `/v1/`. */
  baseUrl: string;
  /** A project key (`sk_prj_…`) or console session (`sk_con_…`). */
  apiKey?: string;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Extra attempts for reads, cancel and create (made safe by its Idempotency-Key) after a 5xx or network error. Default 2. */
  maxRetries?: number;
  /** First retry delay, doubled per attempt. Default 500 ms. */
  retryBaseMs?: number;
  /** Per request attempt. Default 60 s. */
  timeoutMs?: number;
  /** How the client waits between polls and retries. For tests and custom schedulers. */
  sleep?: Sleep;
  /**
   * Read-your-writes across clients: the `bookmark` of an earlier client (docs/api.md,
   * "Read-your-writes: x-d1-bookmark"). Within one client it is carried forward by itself.
   */
  bookmark?: string;
  /** Called with each newer bookmark, e.g. to save it for another process. */
  onBookmark?: (bookmark: string) => void;
}

/** `GET /v1/transcriptions/{transcriptionId}` and its export. The job's own files are in your bucket (see `downloads`). */
export class TranscriptionsResource {
  constructor(private readonly t: Transport) {}

  async get(
    transcriptionId: string,
    options: { layers?: readonly TranscriptLayer[]; signal?: AbortSignal } = {},
  ): Promise<TranscriptRecord> {
    const res = await this.t.call<TranscriptRecord, "getTranscription">("getTranscription", {
      params: { transcriptionId },
      query: { layers: options.layers?.join(",") },
      signal: options.signal,
    });
    return res.data;
  }

  /**
   * `GET /v1/transcriptions/{transcriptionId}/export`: the transcript as a file, rendered now (every
   * segment edit and speaker name so far): Word, Markdown, SRT, WebVTT, text or the segments JSON.
   */
  async export(
    transcriptionId: string,
    format: ExportFormat,
    options: { layer?: ExportLayer; speakers?: boolean; signal?: AbortSignal } = {},
  ): Promise<TranscriptFile> {
    const res = await this.t.file("exportTranscription", {
      params: { transcriptionId },
      query: { format, layer: options.layer, speakers: options.speakers === undefined ? undefined : String(options.speakers) },
      signal: options.signal,
    });
    const disposition = res.headers.get("content-disposition");
    const revision = res.headers.get(TRANSCRIPT_REVISION_HEADER);
    return {
      bytes: res.bytes,
      text: () => new TextDecoder().decode(res.bytes),
      contentType: res.headers.get("content-type") ?? "application/octet-stream",
      fileName: disposition ? (parseDisposition(disposition).parameters["filename"] ?? null) : null,
      revision: revision === null ? null : Number(revision),
    };
  }
}

/** Clip generations: the record, its clips, and where their files are. */
export class ClipsResource {
  constructor(
    private readonly t: Transport,
    private readonly jobs: JobsResource,
  ) {}

  async get(clipGenerationId: string, options: { signal?: AbortSignal } = {}): Promise<ClipGenerationRecord> {
    const res = await this.t.call<ClipGenerationRecord, "getClipGeneration">("getClipGeneration", {
      params: { clipGenerationId },
      signal: options.signal,
    });
    return res.data;
  }

  /** The clips of a clip generation, best first (`[]` until it completes). */
  async list(clipGenerationId: string, options: { signal?: AbortSignal } = {}): Promise<ClipGenerationRecord["clips"]> {
    return (await this.get(clipGenerationId, options)).clips;
  }

  /** Each clip's MP4 and poster as bucket objects, for `downloadOutputs`. The bucket is the clip job's `input.bucket`. */
  async outputs(clipGenerationId: string, options: { signal?: AbortSignal } = {}): Promise<OutputObject[]> {
    const record = await this.get(clipGenerationId, options);
    const job = await this.jobs.get(record.jobId, options);
    const bucket = job.input["bucket"];
    if (typeof bucket !== "string") throw new TypeError(`job ${job.jobId} names no bucket`);
    return clipOutputs(record, bucket);
  }
}

export class CatalogResource {
  constructor(private readonly t: Transport) {}

  /** `POST /v1/catalog/search` (permission `ai:search`). */
  async search(query: string, options: Omit<SearchInput, "query"> & { signal?: AbortSignal } = {}): Promise<SearchResponse> {
    const { signal, ...rest } = options;
    const res = await this.t.call<Omit<SearchResponse, "metadata">, "searchCatalog">("searchCatalog", { body: { query, ...rest }, signal });
    return { ...res.data, metadata: res.metadata };
  }
}

export const webhooks = {
  /** See `verifyWebhook`: resolves to the parsed event, rejects with `WebhookVerificationError`. */
  verify: (rawBody: string | Uint8Array, headers: HeaderSource, secret: string | readonly string[], options?: VerifyOptions) =>
    verifyWebhook(rawBody, headers, secret, options),
};

/**
 * The media-jobs API client. `fetch`-based, with no Node-only imports: it runs in Node ≥ 20,
 * browsers and Workers.
 *
 * ```ts
 * const mj = new MediaJobs({ baseUrl: "http://127.0.0.1:8787", apiKey: process.env.MEDIA_JOBS_KEY });
 * const job = await mj.jobs.submitAndWait({ serviceType: "transcription", input: { … } }, { onUpdate: (j) => console.log(j.status) });
 * ```
 */
export class MediaJobs {
  readonly jobs: JobsResource;
  readonly transcriptions: TranscriptionsResource;
  readonly clips: ClipsResource;
  readonly catalog: CatalogResource;
  readonly workflows: WorkflowsResource;
  readonly webhooks = webhooks;
  private readonly transport: Transport;

  constructor(options: MediaJobsOptions) {
    const transport = new Transport(options);
    this.transport = transport;
    this.jobs = new JobsResource(transport);
    this.transcriptions = new TranscriptionsResource(transport);
    this.clips = new ClipsResource(transport, this.jobs);
    this.catalog = new CatalogResource(transport);
    this.workflows = new WorkflowsResource(transport);
  }

  /**
   * The newest read-your-writes bookmark the API answered this client (null before its first call):
   * every call sends it, so a read after a write sees that write even on a read replica.
   */
  get bookmark(): string | null {
    return this.transport.bookmark;
  }
}
