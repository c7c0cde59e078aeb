import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { TranscriptionStored } from "../../../contracts/services/transcription";
import type { TRANSCRIPTION_STAGES } from "../../../contracts/services/transcription";
import type { Settings } from "../../../contracts/settings";
import { StepFailure } from "../../../contracts/step-failure";
import type { Segment, TranscriptionResult, VisualChunk, Word } from "../../../contracts/transcript";
import type { EngineTranscript, SpeechEngine, VocabularyUse } from "../../engines/speech/interface";
import { wordsFromSegments } from "../../engines/speech/segments";
import type { StageReporter } from "../../../contracts/step-kit";
import {
  analyseVideo,
  compressChunk,
  cutChunk,
  denoise,
  DENOISE_HIGHPASS,
  detectSilences,
  extractAudio,
  planChunks,
  planDenoise,
  separateVocals,
  type ChunkRange,
  type DenoisePlan,
} from "../../media/ffmpeg";
import { openSource, type AcceptedSource } from "../../media/source";
import { SOURCE, type ObjectStore } from "../../object-store";
import { toolStep } from "../../objects";
import { round3 } from "../../step-input";
import { mapLimit } from "../shared/map-limit";
import { majorityLanguage } from "./languages";
import { primaryLanguage } from "../../engines/speech/languages";
import { buildSegments, mergeChunkWords } from "./merge";
import { diarizedSegments } from "./speakers";
import { speakerList } from "../../../contracts/speakers";
import type { DiarizationEngine } from "../../engines/diarization/interface";
import { TRANSCRIPT_FILES } from "../../../contracts/transcript-files";

/**
 * The transcription step's stages (contracts/services/transcription.ts), one function each over a
 * `TranscriptionRun`; each returns what the stages after it read, and a `…Details` beside it says
 * what its completed event reports. `transcribe` reports its own sub-stages (a single pass, or
 * split, compress, one per chunk, merge), so it takes the reporter with the run.
 */

export type TranscriptionStage = (typeof TRANSCRIPTION_STAGES)[number];

/** What every stage of one task reads: the job's stored input, the settings, the engine, where it works. */
export interface TranscriptionRun {
  readonly input: TranscriptionStored;
  readonly settings: Pick<Settings, "transcription" | "runner">;
  readonly engine: SpeechEngine;
  /** The job's language hint, checked against the settings and the engine; undefined: detect. */
  readonly language: string | undefined;
  readonly report: StageReporter<TranscriptionStage>;
  readonly workDir: string;
  readonly signal: AbortSignal;
  readonly cores: number;
  /** The job's source (`SOURCE`) and its four files by name, by its bucket or its presigned URLs. */
  readonly objects: ObjectStore;
}

const round = round3;

/** A bucket job's object keys by name (the source and the four files); a presigned job's are its grant's URLs. */
export function objectKeysOf(input: TranscriptionStored): Record<string, string> {
  return input.sourceType === "s3_direct" ? { [SOURCE]: input.sourceKey, ...input.resolvedOutputKeys } : { [SOURCE]: "" };
}

const sourcePathOf = (run: TranscriptionRun) => join(run.workDir, "source");

/** Reports a stage the platform settings turn off, and hands on what the stage would have replaced. */
export async function skipped<T>(run: TranscriptionRun, stage: TranscriptionStage, reason: string, unchanged: T): Promise<T> {
  await run.report.skip(stage, reason);
  return unchanged;
}

// download

export function downloadSource(run: TranscriptionRun): Promise<number> {
  return run.objects.download(SOURCE, sourcePathOf(run), run.signal);
}

export const downloadDetails = (bytes: number) => ({ bytes });

// probe

/**
 * The source accepted (media/source.ts), audio or video containers alike, and no longer than
 * the smaller of the platform's and transcription's maximum durations.
 */
export async function probeSource(run: TranscriptionRun): Promise<AcceptedSource> {
  const s = run.settings;
  const limits = { ...s.runner, maxDurationSec: Math.min(s.runner.maxDurationSec, s.transcription.maxDurationSec) };
  const media = await openSource(sourcePathOf(run), { kind: "any", limits, signal: run.signal });
  if (!media.hasAudio) throw new StepFailure("unsupported_media", "source has no audio stream to transcribe", false);
  return media;
}

export const probeDetails = (p: AcceptedSource) => ({
  durationSec: round(p.durationSec),
  ...(p.declaredDurationSec !== null ? { declaredDurationSec: round(p.declaredDurationSec) } : {}),
  format: p.formatName,
  hasVideo: p.hasVideo,
  streams: p.streams.map((s) => `${s.codecType}:${s.codecName ?? "?"}`),
});

// extract_audio

export interface Extracted {
  path: string;
  noiseFloorDb: number;
}

export function extractAudioTrack(run: TranscriptionRun, media: AcceptedSource): Promise<Extracted> {
  const path = join(run.workDir, "audio.wav");
  const highPass = run.settings.transcription.denoise;
  return toolStep(run.signal, async () => ({ path, ...(await extractAudio(media, path, run.signal, { highPass })) }));
}

export const extractDetails = (run: TranscriptionRun) => () => ({
  sampleRate: 16000,
  channels: 1,
  ...(run.settings.transcription.denoise ? { highPass: DENOISE_HIGHPASS } : {}),
});

// denoise_audio

export interface Denoised {
  /** The track recognition reads next: the extracted one when extraction's high-pass was all the plan asked. */
  path: string;
  plan: DenoisePlan;
}

export async function denoiseAudio(run: TranscriptionRun, extracted: Extracted): Promise<Denoised> {
  const out = join(run.workDir, "audio.denoised.wav");
  const plan = planDenoise(extracted.noiseFloorDb, run.engine.reducesNoise);
  // Extraction applied the high-pass; a second pass runs only for spectral reduction.
  const second = plan.afterExtraction;
  if (!second) return { path: extracted.path, plan };
  await toolStep(run.signal, () => denoise(extracted.path, out, second, run.signal));
  return { path: out, plan };
}

export const denoiseDetails = ({ plan }: Denoised) => ({
  filter: plan.filter,
  noiseFloorDb: plan.noiseFloorDb,
  spectral: plan.spectral,
  passes: plan.afterExtraction ? 2 : 1,
});

// separate_vocals

export async function separateVocalTrack(run: TranscriptionRun, audio: string): Promise<string> {
  const out = join(run.workDir, "audio.vocals.wav");
  await toolStep(run.signal, () => separateVocals(audio, out, run.signal));
  return out;
}

export const separateDetails = () => ({ method: "mid channel, speech band-pass, level normalisation" });

// transcribe (transcribe_file, or split_chunk, compress_chunk, transcribe_chunk, merge)

export interface Transcript {
  language: string;
  segments: Segment[];
  /** What the engine did with the job's vocabulary (every chunk gets the same terms, so the first one's says it). */
  vocabulary?: VocabularyUse;
  /** How sure the engine is of `language`, when it detected it and says so (chunked: the mean over the chunks in that language). */
  languageConfidence?: number;
  /** The engine's own speaker turns, when it labels speakers itself (always one pass then). */
  speakerTurns?: NonNullable<EngineTranscript["speakerTurns"]>;
}

/**
 * A source this short is recognised in one pass; a longer one in chunks cut at silences. An engine
 * that labels speakers itself always gets the whole file: its labels hold within one request only.
 */
export const isSinglePass = (run: TranscriptionRun, media: AcceptedSource): boolean =>
  run.engine.labelsSpeakers || media.durationSec <= run.settings.transcription.singlePassMaxSec;

export function transcribeAudio(run: TranscriptionRun, audio: string, media: AcceptedSource): Promise<Transcript> {
  return isSinglePass(run, media) ? transcribeFile(run, audio, media) : transcribeChunked(run, audio, media);
}

export const transcribeDetails = (run: TranscriptionRun, media: AcceptedSource) => (r: Transcript) => ({
  engine: run.engine.engine,
  model: run.engine.model,
  language: r.language,
  ...(r.languageConfidence !== undefined ? { languageConfidence: r.languageConfidence } : {}),
  segments: r.segments.length,
  mode: isSinglePass(run, media) ? "single_pass" : "chunked",
  ...(r.vocabulary ? { vocabulary: r.vocabulary } : {}),
});

/**
 * One recognition within the job's allowed languages (`options.language` as a list): a part the
 * engine hears as another language is recognised again in the first allowed one, the caller's most
 * expected, rather than transcribed in a language the caller ruled out.
 */
async function recognise(run: TranscriptionRun, path: string): Promise<EngineTranscript> {
  const { vocabulary } = run.input.options;
  // The vocabulary's files (a dictionary, a language model) go in the job's work dir, shared by its chunks.
  const common = { signal: run.signal, workDir: run.workDir, ...(vocabulary && vocabulary.length > 0 ? { vocabulary } : {}) };
  const r = await run.engine.transcribe(path, { ...common, language: run.language });
  const allowed = run.input.options.languages;
  if (!allowed || allowed.some((l) => primaryLanguage(l) === primaryLanguage(r.language))) return r;
  return run.engine.transcribe(path, { ...common, language: primaryLanguage(allowed[0]!) });
}

function engineWords(r: EngineTranscript): Word[] {
  return r.words.length ? r.words : wordsFromSegments(r.segments ?? []);
}

function transcribeFile(run: TranscriptionRun, audio: string, media: AcceptedSource): Promise<Transcript> {
  const { report, signal, engine } = run;
  return report.stage(
    "transcribe_file",
    async () => {
      let input = audio;
      if (engine.inputFormat !== "wav") {
        const format = engine.inputFormat;
        const out = join(run.workDir, `audio.${format}`);
        await report.stage(
          "compress_chunk",
          () => toolStep(signal, () => compressChunk(audio, out, format, signal)),
          () => ({ chunks: 1, format }),
        );
        input = out;
      }
      const r = await recognise(run, input);
      const words = mergeChunkWords([{ start: 0, end: media.durationSec, words: engineWords(r) }]);
      return {
        language: r.language,
        segments: buildSegments(words),
        ...(r.vocabulary ? { vocabulary: r.vocabulary } : {}),
        ...(r.languageConfidence !== undefined ? { languageConfidence: r.languageConfidence } : {}),
        ...(r.speakerTurns ? { speakerTurns: r.speakerTurns } : {}),
      };
    },
    (r) => ({ words: r.segments.reduce((n, s) => n + (s.words?.length ?? 0), 0), segments: r.segments.length }),
  );
}

async function transcribeChunked(run: TranscriptionRun, audio: string, media: AcceptedSource): Promise<Transcript> {
  const { report, signal, engine } = run;
  const t = run.settings.transcription;
  const dir = join(run.workDir, "chunks");
  await mkdir(dir, { recursive: true });
  const concurrency = Math.max(1, Math.min(run.cores, engine.maxConcurrency));

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
          mapLimit(chunks, run.cores, signal, async (c) => ({ range: c.range, path: await compressTo(c.path, format, signal) })),
        ),
      () => ({ chunks: chunks.length, format }),
    );
  } else {
    await report.skip("compress_chunk", `engine ${engine.engine} reads local WAV files`);
  }

  // Chunks finish out of order under concurrency: `fraction` counts finished ones, so a client's
  // progress bar (the CLI's, the console's) only ever moves forward.
  let finished = 0;
  const results = await mapLimit(inputs, concurrency, signal, (c) =>
    report.stage(
      "transcribe_chunk",
      () => recognise(run, c.path),
      (r) => ({
        chunk: c.range.index,
        language: r.language,
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
      const vocabulary = results[0]?.vocabulary;
      const language = majorityLanguage(results.map((r) => r.language));
      const sure = results.flatMap((r) => (r.language === language && r.languageConfidence !== undefined ? [r.languageConfidence] : []));
      return {
        language,
        segments: buildSegments(words),
        ...(vocabulary ? { vocabulary } : {}),
        ...(sure.length > 0 ? { languageConfidence: round(sure.reduce((a, b) => a + b, 0) / sure.length) } : {}),
      };
    },
    (r) => ({ chunks: results.length, segments: r.segments.length }),
  );
}

async function compressTo(path: string, format: "mp3" | "ogg", signal: AbortSignal): Promise<string> {
  const out = path.replace(/\.wav$/, `.${format}`);
  await compressChunk(path, out, format, signal);
  return out;
}

// video_analysis

/** `threads` 1 keeps an analysis that runs beside recognition from taking the recogniser's core. */
export async function analyseScenes(
  run: TranscriptionRun,
  media: AcceptedSource,
  signal: AbortSignal,
  threads?: number,
): Promise<VisualChunk[]> {
  if (!media.hasVideo) return [];
  const dir = join(run.workDir, "video");
  await mkdir(dir, { recursive: true });
  return toolStep(signal, () => analyseVideo(media, dir, media.durationSec, { signal, ...(threads ? { threads } : {}) }));
}

/**
 * A single-pass transcription keeps one core busy; scene analysis uses the other meanwhile, and its
 * stage is still reported in pipeline order, when its result is taken. `stop` ends it early when
 * transcription fails first, rather than leaving it running into a work directory the runner is
 * about to delete. Null when it waits for its turn (chunked, or one core).
 */
export function startEarlyAnalysis(
  run: TranscriptionRun,
  media: AcceptedSource,
): { result: Promise<VisualChunk[]> | null; stop: (reason: unknown) => void } {
  const early = new AbortController();
  if (!isSinglePass(run, media) || run.cores <= 1) return { result: null, stop: (reason) => early.abort(reason) };
  const result = analyseScenes(run, media, AbortSignal.any([run.signal, early.signal]), 1);
  result.catch(() => undefined);
  return { result, stop: (reason) => early.abort(reason) };
}

// diarize (inside transcribe: an extension of the spec's sub-stages, docs/api.md)

/**
 * Who speaks when, over the track recognition read, laid over the recognised words: segments cut
 * again at every turn, each word and segment labelled (speakers.ts).
 */
export async function diarizeTranscript(
  run: TranscriptionRun,
  diarizer: DiarizationEngine,
  audio: string,
  t: Transcript,
): Promise<Transcript> {
  const { minSpeakers, maxSpeakers } = diarizationOptionsOf(run.input);
  const d = await diarizer.diarize({
    audioPath: audio,
    ...(minSpeakers !== null ? { minSpeakers } : {}),
    ...(maxSpeakers !== null ? { maxSpeakers } : {}),
    signal: run.signal,
  });
  return { ...t, segments: diarizedSegments(t.segments, d) };
}

/** The speech engine's own turns laid over its words, as a diarization engine's would be (speakers.ts). */
export function engineSpeakers(t: Transcript): Transcript {
  const turns = t.speakerTurns ?? [];
  return { ...t, segments: diarizedSegments(t.segments, { turns, speakers: [...new Set(turns.map((x) => x.speaker))] }) };
}

export const engineSpeakersDetails = (engine: SpeechEngine) => (t: Transcript) => ({
  source: "speech engine",
  engine: engine.engine,
  model: engine.model,
  speakers: speakerList(t.segments).map((s) => ({ label: s.label, speakingSec: s.speakingSec, segments: s.segmentCount })),
  segments: t.segments.length,
});

export const diarizeDetails = (diarizer: DiarizationEngine) => (t: Transcript) => ({
  engine: diarizer.engine,
  model: diarizer.model,
  speakers: speakerList(t.segments).map((s) => ({ label: s.label, speakingSec: s.speakingSec, segments: s.segmentCount })),
  segments: t.segments.length,
});

/** The job's diarization, as resolved at create; a job stored before speakers reached transcription is not diarized. */
export function diarizationOptionsOf(input: TranscriptionStored): {
  enabled: boolean;
  minSpeakers: number | null;
  maxSpeakers: number | null;
} {
  return input.options.diarization ?? { enabled: false, minSpeakers: null, maxSpeakers: null };
}

export const videoDetails = (media: AcceptedSource) => (v: VisualChunk[]) => ({
  scenes: v.length,
  ...(media.hasVideo ? {} : { reason: "source has no video stream" }),
});

// upload_full_text, upload_segments, upload_transcript_srt, upload_transcript_vtt

export type TranscriptDoc = Omit<TranscriptionResult, "visualChunks" | "outputKeys">;
export type OutputName = keyof TranscriptionResult["outputKeys"];

/** Writes one of the four files; resolves to where it went (a key, or the redacted URL) and its size. */
export async function uploadOutput(run: TranscriptionRun, doc: TranscriptDoc, name: OutputName): Promise<{ key: string; bytes: number }> {
  const file = TRANSCRIPT_FILES[name];
  const body = file.render(doc, { speakers: doc.speakers ?? [], speakerLabels: run.input.options.subtitleSpeakers ?? true });
  return { key: await run.objects.upload(name, body, file.type), bytes: Buffer.byteLength(body) };
}

export const uploadDetails = (u: { key: string; bytes: number }) => ({ key: u.key, bytes: u.bytes });
