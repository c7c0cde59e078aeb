import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { Settings } from "../../../contracts/settings";
import { TRANSCRIPTION_STAGES } from "../../../contracts/services/transcription";
import {
  TranscriptionResultSchema,
  type Segment,
  type TranscriptionResult,
  type VisualChunk,
  type Word,
} from "../../../contracts/transcript";
import { StepFailure } from "../../../contracts/step-failure";
import type { HandlerContext, StepHandler } from "../../handler";
import { createSpeechEngine } from "../../engines/speech/factory";
import type { EngineEnv, EngineTranscript, SpeechEngine } from "../../engines/speech/interface";
import { primaryLanguage } from "../../engines/speech/languages";
import { wordsFromSegments } from "../../engines/speech/segments";
import {
  analyseVideo,
  compressChunk,
  cutChunk,
  denoise,
  DENOISE_HIGHPASS,
  detectSilences,
  extractAudio,
  planDenoise,
  planChunks,
  separateVocals,
  type ChunkRange,
} from "../../media/ffmpeg";
import { openSource, type AcceptedSource } from "../../media/source";
import { parseStepInput, parseStepSettings } from "../../step-input";
import { SOURCE } from "../../object-store";
import { toolStep } from "../../objects";
import { mapLimit } from "../shared/map-limit";
import { buildSegments, mergeChunkWords } from "./merge";
import { toFullText, toSegmentsJson, toSrt, toVtt } from "./subtitles";

type TranscriptionStage = (typeof TRANSCRIPTION_STAGES)[number];
type Ctx = HandlerContext<TranscriptionStage>;

/**
 * The transcription step: a media file in the customer's bucket becomes a transcript and four
 * output files next to it. Every stage of the spec is reported through `ctx.report`, in pipeline
 * order, so the job's progress timeline reads like the spec's stage list.
 */

const OutputKeysSchema = z.object({
  fullText: z.string().min(1),
  segments: z.string().min(1),
  srt: z.string().min(1),
  vtt: z.string().min(1),
});

/** A bucket job names its source key and output keys; a presigned one has its URLs in the task's grant instead. */
const InputSchema = z
  .object({
    sourceType: z.string().optional(),
    sourceKey: z.string().min(1).optional(),
    resolvedOutputKeys: OutputKeysSchema.optional(),
    options: z
      .object({ language: z.string().min(1).optional() })
      .loose()
      .optional(),
  })
  .refine((i) => i.sourceType === "s3_presigned" || (i.sourceKey !== undefined && i.resolvedOutputKeys !== undefined), {
    message: "a bucket job names sourceKey and resolvedOutputKeys",
  });
type TranscriptionInput = z.infer<typeof InputSchema>;
type TranscriptionSettings = Settings["transcription"];

export interface TranscriptionHandlerDeps {
  /** Builds the engine; tests inject fakes, production reads settings and the environment. */
  createEngine?: (settings: TranscriptionSettings, env: EngineEnv, requestTimeoutMs: number) => SpeechEngine;
  env?: EngineEnv;
}

export function createTranscriptionHandler(deps: TranscriptionHandlerDeps = {}): StepHandler<TranscriptionStage> {
  const makeEngine = deps.createEngine ?? ((s, env, timeout) => createSpeechEngine(s, env, { requestTimeoutMs: timeout }));
  return async (ctx) => {
    const input = parseInput(ctx.task.input);
    const settings = parseSettings(ctx.task.settings);
    const t = settings.transcription;
    // Engine HTTP calls must give up before the lease could lapse between two heartbeats.
    const requestTimeoutMs = Math.max(5_000, Math.floor(settings.runner.leaseSeconds * 1000 * 0.8));
    const engine = makeEngine(t, deps.env ?? process.env, requestTimeoutMs);
    const language = checkLanguageHint(input.options?.language, t, engine);
    const objects = await ctx.openObjects({ [SOURCE]: input.sourceKey ?? "", ...(input.resolvedOutputKeys ?? {}) });
    const { report, signal } = ctx;
    await mkdir(ctx.workDir, { recursive: true });

    const sourcePath = join(ctx.workDir, "source");
    await report.stage(
      "download",
      () => objects.download(SOURCE, sourcePath, signal),
      (bytes) => ({ bytes }),
    );

    const media = await report.stage(
      "probe",
      () => probeSource(sourcePath, settings, signal),
      (p) => ({
        durationSec: round(p.durationSec),
        ...(p.declaredDurationSec !== null ? { declaredDurationSec: round(p.declaredDurationSec) } : {}),
        format: p.formatName,
        hasVideo: p.hasVideo,
        streams: p.streams.map((s) => `${s.codecType}:${s.codecName ?? "?"}`),
      }),
    );

    const rawAudio = join(ctx.workDir, "audio.wav");
    const extracted = await report.stage(
      "extract_audio",
      () => toolStep(signal, () => extractAudio(media, rawAudio, signal, { highPass: t.denoise })),
      () => ({ sampleRate: 16000, channels: 1, ...(t.denoise ? { highPass: DENOISE_HIGHPASS } : {}) }),
    );

    let audio = rawAudio;
    if (t.denoise) {
      const out = join(ctx.workDir, "audio.denoised.wav");
      const input = audio;
      const plan = planDenoise(extracted.noiseFloorDb, engine.reducesNoise);
      await report.stage(
        "denoise_audio",
        () =>
          toolStep(signal, async () => {
            // Extraction applied the high-pass; a second pass runs only for spectral reduction.
            if (plan.afterExtraction) await denoise(input, out, plan.afterExtraction, signal);
          }),
        () => ({ filter: plan.filter, noiseFloorDb: plan.noiseFloorDb, spectral: plan.spectral, passes: plan.afterExtraction ? 2 : 1 }),
      );
      if (plan.afterExtraction) audio = out;
    } else {
      await report.skip("denoise_audio", "denoise disabled in platform settings");
    }

    if (t.separateVocals) {
      const out = join(ctx.workDir, "audio.vocals.wav");
      await report.stage(
        "separate_vocals",
        () => toolStep(signal, () => separateVocals(audio, out, signal)),
        () => ({ method: "mid channel, speech band-pass, level normalisation" }),
      );
      audio = out;
    } else {
      await report.skip("separate_vocals", "vocal separation disabled in platform settings");
    }

    const singlePass = media.durationSec <= t.singlePassMaxSec;
    // A single-pass transcription keeps one core busy; scene analysis uses the other meanwhile.
    // Its stage is still reported in pipeline order, when its result is taken.
    // If transcription fails first, the early analysis is stopped rather than left running into a
    // work directory the runner is about to delete.
    const earlyAbort = new AbortController();
    const early = singlePass && ctx.cores > 1 ? runVideoAnalysis(media, ctx, AbortSignal.any([signal, earlyAbort.signal]), 1) : null;
    early?.catch(() => undefined);
    let transcript: Transcript;
    let detected: string;
    try {
      transcript = await report.stage(
        "transcribe",
        () =>
          singlePass ? transcribeFile(ctx, engine, audio, media, language) : transcribeChunked(ctx, engine, audio, media, t, language),
        (r) => ({
          engine: engine.name,
          model: engine.model,
          language: r.language,
          segments: r.segments.length,
          mode: singlePass ? "single_pass" : "chunked",
        }),
      );
      detected = checkDetectedLanguage(transcript.language, t);
    } catch (err) {
      earlyAbort.abort(err);
      throw err;
    }

    const visualChunks = await report.stage(
      "video_analysis",
      () => early ?? runVideoAnalysis(media, ctx, signal),
      (v) => ({
        scenes: v.length,
        ...(media.hasVideo ? {} : { reason: "source has no video stream" }),
      }),
    );

    const doc = {
      language: detected,
      durationSec: round(media.durationSec),
      engine: engine.name,
      model: engine.model,
      segments: transcript.segments,
    };
    const put = (stage: TranscriptionStage, name: keyof TranscriptionResult["outputKeys"], body: string, type: string) =>
      report.stage(
        stage,
        () => objects.upload(name, body, type),
        (location) => ({ key: location, bytes: Buffer.byteLength(body) }),
      );
    const outputKeys = {
      fullText: await put("upload_full_text", "fullText", toFullText(doc.segments), "text/plain; charset=utf-8"),
      segments: await put("upload_segments", "segments", toSegmentsJson(doc), "application/json"),
      srt: await put("upload_transcript_srt", "srt", toSrt(doc.segments), "application/x-subrip; charset=utf-8"),
      vtt: await put("upload_transcript_vtt", "vtt", toVtt(doc.segments), "text/vtt; charset=utf-8"),
    };

    const result: TranscriptionResult = { ...doc, visualChunks, outputKeys };
    return TranscriptionResultSchema.parse(result);
  };
}

export const transcriptionHandler: StepHandler<TranscriptionStage> = createTranscriptionHandler();

function parseInput(raw: Record<string, unknown>): TranscriptionInput {
  return parseStepInput(InputSchema, raw, "transcription input");
}

/** Only the keys this handler reads are taken, so unrelated settings can never fail a transcription. */
function parseSettings(raw: Record<string, unknown>): Pick<Settings, "transcription" | "runner"> {
  return parseStepSettings(raw, ["transcription", "runner"]);
}

function unsupportedLanguage(lang: string, engine: SpeechEngine): StepFailure {
  return new StepFailure(
    "unsupported_language",
    `language ${lang} is not supported by the configured engine ${engine.name} (supported: ${engine.languages?.join(", ") ?? "any"})`,
    false,
  );
}

/**
 * The hint must be a platform-supported source language (the Worker also checks at create; the
 * settings may have changed since) and one the engine knows. Without a hint, an engine that cannot
 * detect languages transcribes in its only language, which must itself be allowed.
 */
function checkLanguageHint(hint: string | undefined, t: TranscriptionSettings, engine: SpeechEngine): string | undefined {
  const allowed = t.supportedSourceLanguages.map(primaryLanguage);
  if (hint !== undefined) {
    const lang = primaryLanguage(hint);
    if (!allowed.includes(lang)) {
      throw new StepFailure(
        "unsupported_language",
        `language ${hint} is not a supported source language (supported: ${allowed.join(", ")})`,
        false,
      );
    }
    if (!engine.supportsLanguage(lang)) throw unsupportedLanguage(hint, engine);
    return lang;
  }
  if (!engine.detectsLanguage && engine.languages && !engine.languages.some((l) => allowed.includes(l))) {
    throw new StepFailure(
      "unsupported_language",
      `the configured engine ${engine.name} only recognises ${engine.languages.join(", ")}, none of which is a supported source language`,
      false,
    );
  }
  return undefined;
}

function checkDetectedLanguage(detected: string, t: TranscriptionSettings): string {
  const lang = primaryLanguage(detected);
  const allowed = t.supportedSourceLanguages.map(primaryLanguage);
  if (!allowed.includes(lang)) {
    throw new StepFailure(
      "unsupported_language",
      `detected language ${lang} is not a supported source language (supported: ${allowed.join(", ")})`,
      false,
    );
  }
  return lang;
}

/**
 * The source accepted (media/source.ts), audio or video containers alike, and no longer than
 * the smaller of the platform's and transcription's maximum durations.
 */
async function probeSource(path: string, s: Pick<Settings, "transcription" | "runner">, signal: AbortSignal): Promise<AcceptedSource> {
  const limits = { ...s.runner, maxDurationSec: Math.min(s.runner.maxDurationSec, s.transcription.maxDurationSec) };
  const media = await openSource(path, { kind: "any", limits, signal });
  if (!media.hasAudio) throw new StepFailure("unsupported_media", "source has no audio stream to transcribe", false);
  return media;
}

/**
 * ffmpeg failing on a file that probed fine is unexpected: worth one more attempt. An abort (lease
 * lost, cancel, a failed sibling chunk) passes through as it is.
 */

interface Transcript {
  language: string;
  segments: Segment[];
}

function engineWords(r: EngineTranscript): Word[] {
  return r.words.length ? r.words : wordsFromSegments(r.segments ?? []);
}

async function transcribeFile(
  ctx: Ctx,
  engine: SpeechEngine,
  audio: string,
  media: AcceptedSource,
  language: string | undefined,
): Promise<Transcript> {
  const { report, signal } = ctx;
  return report.stage(
    "transcribe_file",
    async () => {
      let input = audio;
      if (engine.inputFormat !== "wav") {
        const format = engine.inputFormat;
        const out = join(ctx.workDir, `audio.${format}`);
        await report.stage(
          "compress_chunk",
          () => toolStep(signal, () => compressChunk(audio, out, format, signal)),
          () => ({ chunks: 1, format }),
        );
        input = out;
      }
      const r = await engine.transcribe(input, { language, signal });
      const words = mergeChunkWords([{ start: 0, end: media.durationSec, words: engineWords(r) }]);
      return { language: r.language, segments: buildSegments(words) };
    },
    (r) => ({ words: r.segments.reduce((n, s) => n + (s.words?.length ?? 0), 0), segments: r.segments.length }),
  );
}

async function transcribeChunked(
  ctx: Ctx,
  engine: SpeechEngine,
  audio: string,
  media: AcceptedSource,
  t: TranscriptionSettings,
  language: string | undefined,
): Promise<Transcript> {
  const { report, signal } = ctx;
  const dir = join(ctx.workDir, "chunks");
  await mkdir(dir, { recursive: true });
  const concurrency = Math.max(1, Math.min(ctx.cores, engine.maxConcurrency));

  const chunks = await report.stage(
    "split_chunk",
    () =>
      toolStep(signal, async () => {
        const silences = await detectSilences(audio, { signal });
        const ranges = planChunks(media.durationSec, silences, { maxChunkSec: t.maxChunkSec });
        const files = ranges.map((r) => ({ range: r, path: join(dir, `chunk-${String(r.index).padStart(4, "0")}.wav`) }));
        await mapLimit(files, concurrency, signal, (f) => cutChunk(audio, f.range, f.path, signal));
        return files;
      }),
    (files) => ({ chunks: files.length, maxChunkSec: t.maxChunkSec, boundaries: files.slice(1).map((f) => round(f.range.start)) }),
  );

  let inputs: { range: ChunkRange; path: string }[] = chunks;
  if (engine.inputFormat !== "wav") {
    const format = engine.inputFormat;
    inputs = await report.stage(
      "compress_chunk",
      () =>
        toolStep(signal, () =>
          mapLimit(chunks, ctx.cores, signal, async (c) => ({ range: c.range, path: await compressTo(c.path, format, signal) })),
        ),
      () => ({ chunks: chunks.length, format }),
    );
  } else {
    await report.skip("compress_chunk", `engine ${engine.name} reads local WAV files`);
  }

  // Chunks finish out of order under concurrency: `fraction` counts finished ones, so a client's
  // progress bar (the CLI's, the console's) only ever moves forward.
  let finished = 0;
  const results = await mapLimit(inputs, concurrency, signal, (c) =>
    report.stage(
      "transcribe_chunk",
      () => engine.transcribe(c.path, { language, signal }),
      (r) => ({
        chunk: c.range.index,
        of: inputs.length,
        fraction: round(++finished / inputs.length),
        start: round(c.range.start),
        end: round(c.range.end),
        words: engineWords(r).length,
      }),
    ),
  );

  return report.stage(
    "merge",
    async () => {
      const words = mergeChunkWords(
        results.map((r, i) => ({ start: inputs[i]!.range.start, end: inputs[i]!.range.end, words: engineWords(r) })),
      );
      return { language: majorityLanguage(results.map((r) => r.language)), segments: buildSegments(words) };
    },
    (r) => ({ chunks: results.length, segments: r.segments.length }),
  );
}

async function compressTo(path: string, format: "mp3" | "ogg", signal: AbortSignal): Promise<string> {
  const out = path.replace(/\.wav$/, `.${format}`);
  await compressChunk(path, out, format, signal);
  return out;
}

/** Chunks of one source can disagree on a short or silent chunk; the most common answer wins. */
function majorityLanguage(langs: string[]): string {
  const counts = new Map<string, number>();
  for (const l of langs) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "und";
}

/** `threads` 1 keeps an analysis that runs beside recognition from taking the recogniser's core. */
async function runVideoAnalysis(media: AcceptedSource, ctx: Ctx, signal: AbortSignal, threads?: number): Promise<VisualChunk[]> {
  if (!media.hasVideo) return [];
  const dir = join(ctx.workDir, "video");
  await mkdir(dir, { recursive: true });
  return toolStep(signal, () => analyseVideo(media, dir, media.durationSec, { signal, ...(threads ? { threads } : {}) }));
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
