import { mkdir } from "node:fs/promises";
import type { transcribeStep } from "../../../contracts/services/transcription";
import type { Settings } from "../../../contracts/settings";
import { TranscriptionResultSchema, type TranscriptionResult } from "../../../contracts/transcript";
import { createSpeechEngine } from "../../engines/speech/factory";
import type { EngineEnv, SpeechEngine } from "../../engines/speech/interface";
import { parseStepSettings, round3 } from "../../step-input";
import { createDiarizationEngine } from "../../engines/diarization/factory";
import type { DiarizationEngine } from "../../engines/diarization/interface";
import { speakerList } from "../../../contracts/speakers";
import { StepFailure } from "../../../contracts/step-failure";
import type { ServiceStepHandler } from "../types";
import { checkDetectedLanguage, checkLanguageHint } from "./languages";
import { redactDetails, redactTranscript, type Redacted } from "./redaction";
import {
  analyseScenes,
  denoiseAudio,
  denoiseDetails,
  diarizationOptionsOf,
  diarizeDetails,
  diarizeTranscript,
  downloadDetails,
  engineSpeakers,
  engineSpeakersDetails,
  downloadSource,
  extractAudioTrack,
  extractDetails,
  objectKeysOf,
  probeDetails,
  probeSource,
  separateDetails,
  separateVocalTrack,
  skipped,
  startEarlyAnalysis,
  transcribeAudio,
  transcribeDetails,
  uploadDetails,
  uploadOutput,
  videoDetails,
  type OutputName,
  type TranscriptDoc,
  type TranscriptionRun,
  type TranscriptionStage,
} from "./stages";

/**
 * The transcription step: a media file in the customer's bucket becomes a transcript and four
 * output files next to it. Every stage of the spec is reported through `ctx.report`, in pipeline
 * order, one function per stage (stages.ts), so the job's progress timeline reads like the spec's
 * stage list.
 */

type TranscriptionHandler = ServiceStepHandler<"transcription", typeof transcribeStep>;

export interface TranscriptionHandlerDeps {
  /** Builds the engine; tests inject fakes, production reads settings and the environment. */
  createEngine?: (settings: Settings["transcription"], env: EngineEnv, requestTimeoutMs: number) => SpeechEngine;
  /** Builds the diarization engine the same way. */
  createDiarizer?: (settings: Settings["transcription"], env: EngineEnv, requestTimeoutMs: number) => DiarizationEngine;
  env?: EngineEnv;
}

/** The settings' diarization engine; `none` reaches here only for a job created before the setting changed. */
function defaultDiarizer(t: Settings["transcription"], env: EngineEnv, requestTimeoutMs: number): DiarizationEngine {
  if (t.diarizationEngine === "none")
    throw new StepFailure("engine_unavailable", "diarization was asked for but settings transcription.diarizationEngine is none", false);
  return createDiarizationEngine(t.diarizationEngine, env, {
    requestTimeoutMs,
    ...(t.diarizationModel ? { model: t.diarizationModel } : {}),
  });
}

export function createTranscriptionHandler(deps: TranscriptionHandlerDeps = {}): TranscriptionHandler {
  const makeEngine = deps.createEngine ?? ((s, env, timeout) => createSpeechEngine(s, env, { requestTimeoutMs: timeout }));
  const makeDiarizer = deps.createDiarizer ?? defaultDiarizer;
  return async (ctx) => {
    const { report, signal, input } = ctx;
    // Only the keys this handler reads are taken, so unrelated settings can never fail a transcription.
    const settings = parseStepSettings(ctx.task.settings, ["transcription", "runner"]);
    const t = settings.transcription;
    // Engine HTTP calls must give up before the lease could lapse between two heartbeats.
    const requestTimeoutMs = Math.max(5_000, Math.floor(settings.runner.leaseSeconds * 1000 * 0.8));
    const engine = makeEngine(t, deps.env ?? process.env, requestTimeoutMs);
    const language = checkLanguageHint(input.options.language, t, engine, input.options.languages);
    const objects = await ctx.openObjects(objectKeysOf(input));
    const { workDir, cores } = ctx;
    const run: TranscriptionRun = { input, settings, engine, language, report, workDir, signal, cores, objects };
    await mkdir(workDir, { recursive: true });

    await report.stage("download", () => downloadSource(run), downloadDetails);
    const media = await report.stage("probe", () => probeSource(run), probeDetails);
    const extracted = await report.stage("extract_audio", () => extractAudioTrack(run, media), extractDetails(run));
    const clean = t.denoise
      ? (await report.stage("denoise_audio", () => denoiseAudio(run, extracted), denoiseDetails)).path
      : await skipped(run, "denoise_audio", "denoise disabled in platform settings", extracted.path);
    const speech = t.separateVocals
      ? await report.stage("separate_vocals", () => separateVocalTrack(run, clean), separateDetails)
      : await skipped(run, "separate_vocals", "vocal separation disabled in platform settings", clean);

    const early = startEarlyAnalysis(run, media);
    let doc: TranscriptDoc;
    try {
      const wanted = diarizationOptionsOf(input).enabled;
      // A speech engine that labels speakers itself is used as it is: no diarization engine then.
      const byEngine = wanted && engine.labelsSpeakers;
      const diarizer = wanted && !byEngine ? makeDiarizer(t, deps.env ?? process.env, requestTimeoutMs) : null;
      const transcript = await report.stage(
        "transcribe",
        async () => {
          const heard = await transcribeAudio(run, speech, media);
          if (byEngine) return report.stage("diarize", async () => engineSpeakers(heard), engineSpeakersDetails(engine));
          return diarizer
            ? report.stage("diarize", () => diarizeTranscript(run, diarizer, speech, heard), diarizeDetails(diarizer))
            : report.skip("diarize", "diarization is off for this job").then(() => heard);
        },
        transcribeDetails(run, media),
      );
      const detected = checkDetectedLanguage(transcript.language, t);
      doc = {
        language: detected,
        languageConfidence: transcript.languageConfidence ?? null,
        durationSec: round3(media.durationSec),
        engine: engine.engine,
        model: engine.model,
        segments: transcript.segments,
        speakers: speakerList(transcript.segments),
        diarization: byEngine
          ? { engine: engine.engine, model: engine.model }
          : diarizer
            ? { engine: diarizer.engine, model: diarizer.model }
            : null,
      };
    } catch (err) {
      early.stop(err);
      throw err;
    }
    const redaction = input.options.redaction ?? null;
    let redacted: Redacted | null = null;
    if (redaction) {
      const heard = doc;
      redacted = await report.stage("redact", async () => redactTranscript(heard, redaction), redactDetails);
      doc = redacted.doc;
    } else await report.skip("redact", "redaction is off for this job");
    const visualChunks = await report.stage("video_analysis", () => early.result ?? analyseScenes(run, media, signal), videoDetails(media));

    const upload = async (stage: TranscriptionStage, name: OutputName) =>
      (await report.stage(stage, () => uploadOutput(run, doc, name), uploadDetails)).key;
    const outputKeys = {
      fullText: await upload("upload_full_text", "fullText"),
      segments: await upload("upload_segments", "segments"),
      srt: await upload("upload_transcript_srt", "srt"),
      vtt: await upload("upload_transcript_vtt", "vtt"),
    };
    const result: TranscriptionResult = {
      ...doc,
      visualChunks,
      outputKeys,
      ...(redacted ? { redaction: redacted.record } : {}),
      ...(redacted?.unredacted ? { unredactedSegments: redacted.unredacted } : {}),
    };
    return TranscriptionResultSchema.parse(result);
  };
}

export const transcriptionHandler: TranscriptionHandler = createTranscriptionHandler();
