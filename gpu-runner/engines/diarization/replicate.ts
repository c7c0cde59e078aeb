import { mkdtemp, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { compressChunk } from "../../media/ffmpeg";
import type { EngineHttpClient, RetryPolicy } from "../http";
import { fetchOutputJson, outputFileUrl, type OutputFileHosts, outputFetchOf } from "../output-files";
import { replicateClient, type ReplicatePredictions } from "../replicate-predictions";
import type { Diarization, DiarizationEngine, DiarizeRequest } from "./interface";
import { normaliseTurns } from "./turns";
import { scratchRoot } from "../../task-scope";

/**
 * pyannote speaker diarization hosted on Replicate, over the predictions API every Replicate backend
 * shares (replicate-predictions.ts: create with `Prefer: wait`, poll, cancel when the task is
 * cancelled, a new prediction when one fails).
 *
 * The default model is `collectiveai-team/speaker-diarization-3` (pyannote/speaker-diarization-3.1).
 * Its input is `{ audio, num_speakers?, min_speakers?, max_speakers? }`; its output is inline JSON,
 * `{ segments: [{ speaker, start, stop }], speakers: { count, labels, embeddings } }`. The older
 * `meronym/speaker-diarization` (pyannote 2, no speaker bounds) also works when configured: it
 * answers the URL of an `output.json` of the same shape, fetched as engines/output-files.ts fetches any
 * output (https, delivery hosts only, address-checked, no redirect, capped, no API token). Times come
 * as seconds or as `H:MM:SS.ffffff` strings; both are read. Bounds are sent as `num_speakers` when
 * min equals max, else as `min_speakers`/`max_speakers`, and only when given.
 *
 * Audio goes inline as a data URI, like the speech engine's chunks: the 16 kHz WAV is compressed to
 * 32 kbps mono MP3 first (14 MB an hour), which the model decodes with ffmpeg; a file that already is
 * MP3 or Ogg (the pipeline's compressed copy) is sent as it is. Overlapped speech
 * that pyannote reports is cut so turns never overlap, and the model's labels are renamed
 * SPEAKER_NN by first appearance (turns.ts).
 */
export interface ReplicateDiarizationConfig {
  apiToken: string;
  /** `owner/name:version`, or `owner/name` for an official model. */
  model: string;
  baseUrl: string;
  pollIntervalMs: number;
  retry: RetryPolicy;
  /** Where output files may come from. */
  files: OutputFileHosts;
}

/** collectiveai-team/speaker-diarization-3, the version with num/min/max_speakers inputs. */
export const REPLICATE_DIARIZATION_DEFAULT_MODEL =
  "collectiveai-team/speaker-diarization-3:6e29843b8c1b751ec384ad96d3566af2392046465152fef3cc22ad701090b64c";

const Time = z.union([z.number(), z.string()]);
const OutputSchema = z
  .object({
    segments: z.array(
      z.object({ speaker: z.union([z.string(), z.number()]), start: Time, stop: Time.optional(), end: Time.optional() }).loose(),
    ),
  })
  .loose();

/** Seconds from `12.5`, `"12.5"` or `"0:00:12.500000"`; NaN for anything else. */
export function parseSeconds(t: number | string): number {
  if (typeof t === "number") return t;
  const clock = /^(\d+):([0-5]?\d):(\d+(?:\.\d+)?)$/.exec(t.trim());
  if (clock) return Number(clock[1]) * 3600 + Number(clock[2]) * 60 + Number(clock[3]);
  return t.trim() === "" ? NaN : Number(t);
}

export class ReplicateDiarizationEngine implements DiarizationEngine {
  readonly engine = "replicate";
  private readonly http: EngineHttpClient;
  private readonly predictions: ReplicatePredictions;

  constructor(private readonly config: ReplicateDiarizationConfig) {
    ({ http: this.http, predictions: this.predictions } = replicateClient(this.engine, config));
  }

  get model(): string {
    return this.config.model;
  }

  async diarize(req: DiarizeRequest): Promise<Diarization> {
    const input = { audio: await this.audioDataUri(req.audioPath, req.signal), ...speakerBounds(req) };
    const prediction = await this.predictions.run(input, req.signal);
    const output = typeof prediction.output === "string" ? await this.download(prediction.output, req.signal) : prediction.output;
    const parsed = OutputSchema.safeParse(output);
    if (!parsed.success) throw this.http.failure(`diarization output has an unexpected shape: ${parsed.error.issues[0]?.message ?? ""}`);
    return normaliseTurns(
      parsed.data.segments.map((s) => ({ start: parseSeconds(s.start), end: parseSeconds(s.stop ?? s.end ?? NaN), speaker: s.speaker })),
    );
  }

  private async audioDataUri(audio: string, signal: AbortSignal): Promise<string> {
    const bytes = await readFile(audio);
    const compressed = compressedType(bytes);
    if (compressed) return `data:${compressed};base64,${bytes.toString("base64")}`;
    const dir = await mkdtemp(path.join(scratchRoot(), "diarize-replicate-"));
    try {
      const mp3 = path.join(dir, "audio.mp3");
      await compressChunk(audio, mp3, "mp3", signal);
      return `data:audio/mpeg;base64,${(await readFile(mp3)).toString("base64")}`;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** An output file (meronym's output.json), fetched as engines/output-files.ts fetches outputs. */
  private async download(ref: string, signal: AbortSignal): Promise<unknown> {
    const outputs = outputFetchOf(
      { engine: this.engine, model: this.model, retry: this.config.retry, files: this.config.files },
      this.http,
    );
    return fetchOutputJson(outputFileUrl(ref, outputs), outputs, { signal });
  }
}

/** `audio/mpeg` or `audio/ogg` from a file's first bytes (ID3 tag or MPEG frame sync; OggS); else undefined. */
function compressedType(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 3).toString("latin1") === "ID3" || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0)) return "audio/mpeg";
  if (bytes.subarray(0, 4).toString("latin1") === "OggS") return "audio/ogg";
  return undefined;
}

function speakerBounds(req: DiarizeRequest): Record<string, number> {
  const { minSpeakers: min, maxSpeakers: max } = req;
  if (min !== undefined && min === max) return { num_speakers: min };
  return { ...(min !== undefined ? { min_speakers: min } : {}), ...(max !== undefined ? { max_speakers: max } : {}) };
}
