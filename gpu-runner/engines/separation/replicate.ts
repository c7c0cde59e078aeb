import { mkdtemp, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { probe } from "../../media/ffmpeg";
import { FFMPEG, FFPROBE, fileInput, runTool, runToolOk } from "../../media/spawn";
import type { EngineHttpClient, RetryPolicy } from "../http";
import { outputFileUrl, saveOutputFile, type OutputFileHosts, outputFetchOf } from "../output-files";
import { replicateClient, type ReplicatePredictions } from "../replicate-predictions";
import { during, writeStems } from "./stems";
import { SEPARATION_RATE, type SeparateRequest, type SeparationEngine } from "./interface";

/**
 * Demucs (Meta's hybrid transformer source separator) hosted on Replicate, over the predictions
 * API every Replicate backend shares (replicate-predictions.ts: create with `Prefer: wait`, poll,
 * cancel when the task is cancelled, a new prediction when one fails).
 *
 * The default model is `ryan5453/demucs` (its cog: github.com/ryan5453/demucs-cog). Input `{ audio,
 * model (htdemucs | htdemucs_ft | htdemucs_6s | hdemucs_mmi | mdx_q | mdx_extra_q), stem (none |
 * vocals | drums | …), output_format (mp3 | wav | flac), clip_mode (rescale | clamp | none), shifts,
 * overlap, split, segment, jobs, … }`; output an object of file URLs by stem name: with `stem:
 * "vocals"`, `{ vocals, no_vocals }` (no_vocals the sum of every other stem), with `stem: "none"`
 * every stem of the model (`vocals, drums, bass, other`, htdemucs_6s adds `guitar, piano`), which
 * are then summed here. Stems come at the model's 44.1 kHz, stereo.
 *
 * Sent: the source's sound as a data URI, like the other Replicate engines' audio, compressed to
 * 192 kbps MP3 at 44.1 kHz with its own channels (86 MB an hour; Demucs decodes it with ffmpeg and
 * works at 44.1 kHz anyway); a source that already is MP3 goes as it is. Asked for FLAC stems and `clip_mode: "clamp"`: rescaling would change a
 * stem's level against the source, which the background is spliced with.
 *
 * Written: speech is removed, not ducked (`duckDb` is for engines that can only duck). Inside the
 * speech stretches the background is the accompaniment and the vocals are Demucs' vocals; outside
 * them the background is the source untouched and the vocals silence, so music with singing where
 * nobody speaks stays in the dub, and vocals + background is the source throughout. Both are
 * resampled to 48 kHz, given the source's channels, and padded or cut to its exact duration. Gates
 * switch every 10 ms. Stems are streamed to disk as engines/output-files.ts fetches any output (https,
 * delivery hosts only, address-checked, no redirect, no API token), each at most the size of the
 * source's duration as uncompressed 32-bit stereo at 44.1 kHz (`stemBound`).
 */
export interface ReplicateSeparationConfig {
  apiToken: string;
  /** `owner/name:version`, or `owner/name` for an official model. */
  model: string;
  /** The Demucs weights the model runs (its `model` input). */
  demucs: DemucsModel;
  baseUrl: string;
  pollIntervalMs: number;
  retry: RetryPolicy;
  /** Where output files may come from. */
  files: OutputFileHosts;
}

/** ryan5453/demucs, the version with FLAC output and the `clip_mode` input. */
export const REPLICATE_SEPARATION_DEFAULT_MODEL = "ryan5453/demucs:5a7041cc9b82e5a558fea6b3d7b12dea89625e89da33f0447bd727c2d0ab9e77";

/** htdemucs_ft separates better, taking four times as long (the model's readme). */
export const DEMUCS_MODELS = ["htdemucs", "htdemucs_ft", "htdemucs_6s", "hdemucs_mmi", "mdx_q", "mdx_extra_q"] as const;
export type DemucsModel = (typeof DEMUCS_MODELS)[number];

const FF_BASE = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error"];
/** 10 ms at 48 kHz: how finely the speech gates switch. */
const GATE_FRAME = 480;

const OutputSchema = z.record(z.string(), z.string());

export class ReplicateSeparationEngine implements SeparationEngine {
  readonly engine = "replicate";
  private readonly http: EngineHttpClient;
  private readonly predictions: ReplicatePredictions;

  constructor(private readonly config: ReplicateSeparationConfig) {
    ({ http: this.http, predictions: this.predictions } = replicateClient(this.engine, config));
  }

  get model(): string {
    return this.config.model;
  }

  get method(): string {
    return `Demucs ${this.config.demucs} (${this.config.model}) on Replicate: speech stretches take the accompaniment stem in the background and the vocals stem as vocals; the source elsewhere`;
  }

  async separate(req: SeparateRequest): Promise<void> {
    const scratch = await mkdtemp(path.join(path.dirname(req.backgroundOut), "separation-"));
    try {
      const audio = await this.audioDataUri(req.audioPath, scratch, req.signal);
      const prediction = await this.predictions.run(
        { audio, model: this.config.demucs, stem: "vocals", output_format: "flac", clip_mode: "clamp" },
        req.signal,
      );
      const [source, channels] = await Promise.all([probe(req.audioPath, req.signal), channelsOf(req.audioPath, req.signal)]);
      const stems = this.stemsOf(prediction.output);
      const files: Record<string, string> = {};
      for (const [name, url] of Object.entries(stems)) {
        files[name] = path.join(scratch, `${name}.flac`);
        await this.download(url, files[name], stemBound(source.durationSec), req.signal);
      }
      const accompaniment = files.no_vocals ? [files.no_vocals] : Object.keys(files).flatMap((k) => (k === "vocals" ? [] : [files[k]!]));
      await this.write(req, source.durationSec, channels, files.vocals!, accompaniment);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /** The source as an MP3 data URI; an MP3 is sent as it is (no second lossy generation). */
  private async audioDataUri(audioPath: string, scratch: string, signal: AbortSignal): Promise<string> {
    let bytes = await readFile(audioPath);
    if (!isMp3(bytes)) {
      const mp3 = path.join(scratch, "audio.mp3");
      await runToolOk(FFMPEG, [...FF_BASE, ...fileInput(audioPath), "-vn", "-ar", "44100", "-c:a", "libmp3lame", "-b:a", "192k", mp3], {
        signal,
      });
      bytes = await readFile(mp3);
      await rm(mp3);
    }
    return `data:audio/mpeg;base64,${bytes.toString("base64")}`;
  }

  /** The stems' URLs: `vocals` and either `no_vocals` or the other stems. */
  private stemsOf(output: unknown): Record<string, string> {
    const parsed = OutputSchema.safeParse(output);
    if (!parsed.success) throw this.http.failure(`output is not stems by name: ${parsed.error.issues[0]?.message ?? ""}`);
    const { vocals, no_vocals: noVocals, ...others } = parsed.data;
    if (!vocals) throw this.http.failure("output has no vocals stem");
    if (noVocals) return { vocals, no_vocals: noVocals };
    if (Object.keys(others).length === 0) throw this.http.failure("output has no stem besides vocals");
    return { vocals, ...others };
  }

  /** A stem, streamed to `file` (at most `maxBytes`), fetched as engines/output-files.ts fetches outputs. */
  private async download(ref: string, file: string, maxBytes: number, signal: AbortSignal): Promise<void> {
    const outputs = outputFetchOf(
      { engine: this.engine, model: this.model, retry: this.config.retry, files: this.config.files },
      this.http,
    );
    await saveOutputFile(outputFileUrl(ref, outputs), file, outputs, { signal, accept: "audio/*", maxBytes });
  }

  /** Background and vocals from the source and the stems (see the module's comment). */
  private async write(req: SeparateRequest, durationSec: number, channels: number, vocals: string, accompaniment: readonly string[]) {
    const speech = during(req.speech);
    const layout = channels === 1 ? "mono" : "stereo";
    const shape = (label: string) =>
      `aresample=${SEPARATION_RATE},aformat=sample_fmts=fltp:channel_layouts=${layout},apad,atrim=0:${durationSec.toFixed(6)},asetnsamples=n=${GATE_FRAME}:p=0[${label}]`;
    const gate = (from: string, to: string, inside: 0 | 1) =>
      `[${from}]volume=volume='if(${speech},${inside},${1 - inside})':eval=frame[${to}]`;
    const accInputs = accompaniment.map((_, i) => `[${i + 2}:a]`).join("");
    const graph = [
      `[0:a]${shape("src")}`,
      `[1:a]${shape("voc")}`,
      accompaniment.length === 1 ? `[2:a]${shape("acc")}` : `${accInputs}amix=inputs=${accompaniment.length}:normalize=0,${shape("acc")}`,
      gate("src", "outside", 0),
      gate("acc", "inside", 1),
      "[outside][inside]amix=inputs=2:normalize=0:duration=first[background]",
      gate("voc", "vocals", 1),
    ].join(";\n");
    await writeStems([req.audioPath, vocals, ...accompaniment], graph, req);
  }
}

/**
 * The most a stem of a source this long can be: uncompressed 32-bit stereo at 44.1 kHz (FLAC and
 * WAV stems are smaller), plus a megabyte of headers. A model answering more is not sending a stem.
 */
export function stemBound(durationSec: number): number {
  return Math.ceil(Math.max(0, durationSec) * 44_100 * 2 * 4) + 1024 * 1024;
}

/** An ID3 tag or an MPEG audio frame sync at the start. */
function isMp3(bytes: Buffer): boolean {
  return bytes.subarray(0, 3).toString("latin1") === "ID3" || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0);
}

/** The first audio stream's channel count (the pipeline's sound is mono or stereo). */
async function channelsOf(file: string, signal: AbortSignal): Promise<number> {
  const res = await runTool(
    FFPROBE,
    ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=channels", "-of", "default=nw=1:nk=1", ...fileInput(file)],
    { signal, collectStdout: true },
  );
  const n = Number(res.stdout.trim());
  return res.code === 0 && Number.isInteger(n) && n > 0 ? n : 2;
}
