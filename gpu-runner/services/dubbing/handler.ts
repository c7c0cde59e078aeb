import { stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import {
  DubbingResultSchema,
  type dubStep,
  type DubbedSegment,
  type DubbingResult,
  type DubbingSave,
} from "../../../contracts/services/dubbing";
import { TranslatedSegmentSchema, type TranslatedSegment } from "../../../contracts/services/translation";
import type { StageOf } from "../../../contracts/services/types";
import { TRANSLATION_BACKENDS } from "../../../contracts/translation-languages";
import { MIN_VOICE_SAMPLE_SPEECH_SEC } from "../../../contracts/services/voice-creation";
import type { EngineEnv } from "../../engines/config";
import { createDiarizationEngine } from "../../engines/diarization/factory";
import {
  DIARIZATION_ENGINE_NAMES,
  type DiarizationEngine,
  type DiarizationEngineName,
  type Diarization,
} from "../../engines/diarization/interface";
import { createSeparationEngine } from "../../engines/separation/factory";
import { SEPARATION_ENGINE_NAMES, type SeparationEngine, type SeparationEngineName } from "../../engines/separation/interface";
import { fitToSlot, type FitResult } from "../../engines/synthesis/fit";
import { VoiceSpecSchema, type SynthesisEngine, type VoiceSpec } from "../../engines/synthesis/interface";
import { probe } from "../../media/ffmpeg";
import { openSource } from "../../media/source";
import { StepFailure } from "../../../contracts/step-failure";
import type { HandlerContext, StepHandler } from "../../handler";
import { SOURCE, type ObjectStore } from "../../object-store";
import { parseStepInput, parseStepSettings, round3 } from "../../step-input";
import { toolStep } from "../../objects";
import { defaultSynthesisEngine, type MakeSynthesisEngine } from "../shared/synthesis";
import {
  defaultTranslationEngine,
  loadTranslationSource,
  saveTranslationCall,
  translateSource,
  translationSave,
  TranslationPlanSchema,
  uploadSubtitles,
  type MakeTranslationEngine,
} from "../translation/run";
import { dubbedExtension, extractTracks, mix, render, writeSpeechTrack, type PlacedSpeech } from "./audio";
import { rangesOf, slotsFor, speakerOf, speechStretches, type Slot } from "./slots";

/**
 * Dubbing on the runner, one step:
 *   load_transcription  the translation to speak: the given one (call `dubbing.translation`), or
 *   translate           made here exactly as a translation job makes it, subtitles and record included
 *   download, extract_audio   the source; its sound as the raw artifact and a 16 kHz analysis copy
 *   separate_audio      background and vocals by the chosen separation engine (ffmpeg filters
 *                       ducking speech, or Demucs on Replicate removing it)
 *   diarize             who speaks when (skipped when disabled: one speaker, SPEAKER_00)
 *   assign_voices       per speaker: the assigned voice, or one made from the speaker's own audio
 *                       (`voices.create`), or none: marked for manual assignment, left silent
 *   synthesize_speech   every segment spoken by its speaker's voice, fitted into its slot (slots.ts)
 *   mix_audio, render_video, upload_artifacts, save_dubbing (call `dubbing.save`)
 */
type Stage = StageOf<typeof dubStep>;

const InputSchema = z.object({
  dubbingId: z.string().min(1),
  transcriptionId: z.string().min(1),
  translationId: z.string().min(1),
  sourceLanguage: z.string().min(1),
  targetLanguage: z.string().min(1),
  languageKey: z.string().min(1),
  translation: TranslationPlanSchema.optional(),
  // A bucket job's; an s3_presigned job has its URLs in the task's presigned grant instead.
  bucket: z.string().min(1).optional(),
  sourceKey: z.string().min(1).optional(),
  resolvedOutputPrefix: z.string().min(1).optional(),
  /** An s3_presigned job's source URL, redacted: its path names the container the dub keeps. */
  sourceUrl: z.string().optional(),
  options: z.object({
    diarization: z.object({ enabled: z.boolean(), minSpeakers: z.number().int().nullable(), maxSpeakers: z.number().int().nullable() }),
    voiceCloning: z.object({ enabled: z.boolean() }),
    tts: z.object({ enabled: z.boolean(), modelId: z.string().nullable() }),
  }),
  assignedVoices: z.record(z.string(), z.object({ voiceId: z.string(), spec: z.unknown(), referenceKey: z.string().nullable() })),
  engines: z.object({
    speech: z.string(),
    speechModel: z.string().nullable(),
    diarization: z.enum(DIARIZATION_ENGINE_NAMES),
    diarizationModel: z.string().nullable(),
    // Jobs queued before separation became a choice carry neither: they separate as they always did.
    separation: z.enum(SEPARATION_ENGINE_NAMES).default("local-filters"),
    separationModel: z.string().nullable().default(null),
    mixLoudnessLufs: z.number(),
    duckDb: z.number(),
  }),
});
type Input = z.infer<typeof InputSchema>;

export type MakeDiarizationEngine = (choice: { engine: DiarizationEngineName; model: string | null }, env: EngineEnv) => DiarizationEngine;
const defaultDiarizationEngine: MakeDiarizationEngine = (c, env) =>
  createDiarizationEngine(c.engine, env, { requestTimeoutMs: 300_000, ...(c.model ? { model: c.model } : {}) });

export type MakeSeparationEngine = (choice: { engine: SeparationEngineName; model: string | null }, env: EngineEnv) => SeparationEngine;
const defaultSeparationEngine: MakeSeparationEngine = (c, env) =>
  createSeparationEngine(c.engine, env, { requestTimeoutMs: 300_000, ...(c.model ? { model: c.model } : {}) });

export interface DubbingHandlerDeps {
  createTranslation?: MakeTranslationEngine;
  createSynthesis?: MakeSynthesisEngine;
  createDiarization?: MakeDiarizationEngine;
  createSeparation?: MakeSeparationEngine;
  env?: EngineEnv;
}

interface SpeakerVoice {
  label: string;
  voice: VoiceSpec | null;
  voiceId: string | null;
  voiceSource: "assigned" | "auto_created" | null;
  referencePath?: string;
  reason?: string;
}

const GivenTranslationSchema = z.object({
  translationId: z.string(),
  translationBackend: z.enum(TRANSLATION_BACKENDS),
  model: z.string(),
  segments: z.array(TranslatedSegmentSchema),
});

async function speakTranslation(ctx: HandlerContext<Stage>, input: Input, deps: DubbingHandlerDeps) {
  const { report, signal } = ctx;
  if (!input.translation) {
    const given = await report.stage(
      "load_transcription",
      () => ctx.platform.call("dubbing.translation", {}, GivenTranslationSchema),
      (g) => ({ translationId: g.translationId, segments: g.segments.length }),
    );
    await report.skip("translate", `translation ${input.translationId} was given`);
    return { segments: given.segments, engine: { backend: given.translationBackend, model: given.model } };
  }
  const plan = input.translation;
  const source = await report.stage(
    "load_transcription",
    () => loadTranslationSource(ctx),
    (d) => ({ segments: d.segments.length, sourceLayer: d.sourceLayer }),
  );
  const engine = (deps.createTranslation ?? defaultTranslationEngine)(plan.engine, deps.env ?? process.env);
  const translated = await report.stage(
    "translate",
    async () => {
      const t = await translateSource(engine, plan, source, signal);
      await uploadSubtitles(ctx, plan, t.segments);
      await saveTranslationCall(ctx, translationSave(engine, plan, source, t));
      return t;
    },
    (t) => ({ translationId: plan.translationId, translationBackend: engine.backend, model: t.model, segments: t.segments.length }),
  );
  return { segments: translated.segments, engine: { backend: engine.backend, model: translated.model } };
}

export function createDubbingHandler(deps: DubbingHandlerDeps = {}): StepHandler<Stage> {
  return async (ctx) => {
    const { report, signal, task, workDir } = ctx;
    const input = parseStepInput(InputSchema, task.input, "dubbing input");
    const { runner } = parseStepSettings(task.settings, ["runner"]);
    const env = deps.env ?? process.env;
    const timing: Record<string, number> = {};
    const timed = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      try {
        return await fn();
      } finally {
        timing[name] = round3((performance.now() - t0) / 1000);
      }
    };

    const translation = await timed("translate", () => speakTranslation(ctx, input, deps));
    const objects = await ctx.openObjects({ [SOURCE]: input.sourceKey ?? "" });
    const sourcePath = join(workDir, "source");
    await report.stage(
      "download",
      () => timed("download", () => objects.download(SOURCE, sourcePath, signal)),
      (bytes) => ({ bytes }),
    );

    const raw = join(workDir, "raw_audio.flac");
    const analysis = join(workDir, "analysis.wav");
    // Everything after this is as long as the source measured here: the speech track, the mix and
    // the video, never what the container declares.
    const source = await report.stage(
      "extract_audio",
      () =>
        timed("extract_audio", () =>
          toolStep(signal, async () => {
            const info = await openSource(sourcePath, { kind: "video", limits: runner, signal });
            if (!info.hasVideo) throw new StepFailure("unsupported_media", "the source has no video stream to dub", false);
            if (!info.hasAudio) throw new StepFailure("unsupported_media", "the source has no audio stream to dub", false);
            await extractTracks(info, raw, analysis, signal);
            return info;
          }),
        ),
      (s) => ({
        durationSec: round3(s.durationSec),
        ...(s.declaredDurationSec !== null ? { declaredDurationSec: round3(s.declaredDurationSec) } : {}),
        format: s.format,
      }),
    );
    const durationSec = source.durationSec;

    const stems = { vocals: join(workDir, "vocals.flac"), background: join(workDir, "background.flac") };
    const stretches = speechStretches(translation.segments);
    const separator = (deps.createSeparation ?? defaultSeparationEngine)(
      { engine: input.engines.separation, model: input.engines.separationModel },
      env,
    );
    await report.stage(
      "separate_audio",
      () =>
        timed("separate_audio", () =>
          toolStep(signal, () =>
            separator.separate({
              audioPath: raw,
              speech: stretches,
              duckDb: input.engines.duckDb,
              vocalsOut: stems.vocals,
              backgroundOut: stems.background,
              signal,
            }),
          ),
        ),
      () => ({ engine: separator.engine, method: separator.method, speechStretches: stretches.length, duckDb: input.engines.duckDb }),
    );

    // Who speaks when.
    let diarization: Diarization;
    let diarizer: DiarizationEngine | null = null;
    if (input.options.diarization.enabled) {
      diarizer = (deps.createDiarization ?? defaultDiarizationEngine)(
        { engine: input.engines.diarization, model: input.engines.diarizationModel },
        env,
      );
      const d = diarizer;
      const { minSpeakers, maxSpeakers } = input.options.diarization;
      diarization = await report.stage(
        "diarize",
        () =>
          timed("diarize", () =>
            d.diarize({ audioPath: analysis, ...(minSpeakers ? { minSpeakers } : {}), ...(maxSpeakers ? { maxSpeakers } : {}), signal }),
          ),
        (r) => ({ engine: d.engine, model: d.model, speakers: r.speakers, turns: r.turns.length }),
      );
    } else {
      await report.skip("diarize", "diarization disabled: every segment is SPEAKER_00");
      diarization = { turns: [], speakers: [] };
    }
    const slots = slotsFor(translation.segments, durationSec);
    const speakerBySlot = new Map(slots.map((s) => [s.id, diarization.turns.length > 0 ? speakerOf(s, diarization.turns) : "SPEAKER_00"]));
    const labels = [...new Set([...diarization.speakers, ...speakerBySlot.values()])].sort();

    // A voice per speaker.
    const synth = input.options.tts.enabled
      ? (deps.createSynthesis ?? defaultSynthesisEngine)({ engine: input.engines.speech, model: input.engines.speechModel }, env)
      : null;
    const voices = await report.stage(
      "assign_voices",
      () => timed("assign_voices", () => assignVoices(ctx, objects, input, synth, labels, diarization, analysis)),
      (vs) => ({
        voiced: vs.filter((v) => v.voice).map((v) => `${v.label}:${v.voiceSource}`),
        needsManualAssignment: vs.filter((v) => !v.voice).map((v) => v.label),
      }),
    );
    const voiceOf = new Map(voices.map((v) => [v.label, v]));

    // Speech, fitted into each slot.
    const fitted = new Map<number, FitResult>();
    if (synth) {
      await report.stage(
        "synthesize_speech",
        () => timed("synthesize_speech", () => synthesizeAll(ctx, input, synth, slots, speakerBySlot, voiceOf, fitted)),
        () => ({
          engine: synth.engine,
          model: synth.model,
          spoken: fitted.size,
          rateRaised: [...fitted.values()].filter((f) => f.flags.includes("rate_raised")).length,
          trimmed: [...fitted.values()].filter((f) => f.flags.includes("trimmed")).length,
        }),
      );
    } else await report.skip("synthesize_speech", "tts disabled: the dub keeps the background only");

    const speechTrack = join(workDir, "speech.flac");
    const mixPath = join(workDir, "mix.m4a");
    const loudness = await report.stage(
      "mix_audio",
      () =>
        timed("mix_audio", () =>
          toolStep(signal, async () => {
            const placed: PlacedSpeech[] = slots.flatMap((s) => {
              const f = fitted.get(s.id);
              return f ? [{ path: f.path, start: s.start }] : [];
            });
            await writeSpeechTrack(placed, durationSec, join(workDir, "speech.raw"), speechTrack, join(workDir, "decode.f32"), signal);
            return mix(stems.background, speechTrack, durationSec, input.engines.mixLoudnessLufs, mixPath, signal);
          }),
        ),
      (l) => ({ ...l, targetLufs: input.engines.mixLoudnessLufs }),
    );

    const video = join(workDir, `dubbed.${dubbedExtension(sourceName(input))}`);
    const videoDuration = await report.stage(
      "render_video",
      () =>
        timed("render_video", () =>
          toolStep(signal, async () => {
            await render(source, mixPath, video, signal);
            return (await probe(video, signal)).durationSec;
          }),
        ),
      (d) => ({ durationSec: round3(d), sourceDurationSec: round3(durationSec), videoCodec: "copy" }),
    );

    const files = {
      rawAudio: { path: raw, name: "raw_audio.flac", type: "audio/flac" },
      vocals: { path: stems.vocals, name: "vocals.flac", type: "audio/flac" },
      background: { path: stems.background, name: "background.flac", type: "audio/flac" },
      speech: { path: speechTrack, name: `speech.${input.languageKey}.flac`, type: "audio/flac" },
      mix: { path: mixPath, name: `mix.${input.languageKey}.m4a`, type: "audio/mp4" },
      video: {
        path: video,
        name: `dubbed.${input.languageKey}.${dubbedExtension(sourceName(input))}`,
        type: video.endsWith(".mp4") ? "video/mp4" : "video/x-matroska",
      },
    } as const;
    const artifacts = await report.stage(
      "upload_artifacts",
      () =>
        timed("upload_artifacts", async () => {
          const keys: Record<string, string> = {};
          let bytes = 0;
          for (const [name, f] of Object.entries(files)) {
            // A bucket job names the file by key; a presigned one by its output name (rawAudio, …, video).
            keys[name] = await objects.upload(
              ctx.task.presigned ? name : `${input.resolvedOutputPrefix ?? ""}${f.name}`,
              { path: f.path },
              f.type,
            );
            bytes += (await stat(f.path)).size;
          }
          return { keys: keys as Record<keyof typeof files, string>, bytes };
        }),
      (r) => ({ ...r.keys, bytes: r.bytes }),
    );

    const segments = dubbedSegments(slots, speakerBySlot, voiceOf, fitted, input.options.tts.enabled);
    const spoken = segments.filter((s) => s.speech === "spoken");
    const save: DubbingSave = {
      translationId: input.translationId,
      durationSec: round3(videoDuration),
      artifacts: artifacts.keys,
      speakers: voices.map((v) => {
        const own = segments.filter((s) => s.speaker === v.label);
        return {
          label: v.label,
          status: v.voice ? "voiced" : "needs_manual_assignment",
          voiceId: v.voiceId,
          voiceSource: v.voiceSource,
          voiceKind: v.voice?.kind ?? null,
          speechSec: round3(own.reduce((sum, s) => sum + (s.speechDurationSec ?? 0), 0)),
          segmentCount: own.length,
          ...(v.reason ? { reason: v.reason } : {}),
        };
      }),
      segments,
      engines: {
        translation: translation.engine,
        diarization: diarizer ? { engine: diarizer.engine, model: diarizer.model } : null,
        speech: synth ? { engine: synth.engine, model: synth.model } : null,
        separation: { engine: separator.engine, method: separator.method },
      },
      sync: {
        maxStartOffsetSec: round3(Math.max(0, ...spoken.map((s) => Math.abs((s.speechStart ?? s.sourceStart) - s.sourceStart)))),
        maxOverrunRatio: round3(
          Math.max(
            0,
            ...spoken.map(
              (s) => ((s.speechStart ?? 0) + (s.speechDurationSec ?? 0) - s.slotEnd) / Math.max(s.slotEnd - s.sourceStart, 1e-3),
            ),
          ),
        ),
        durationDeltaSec: round3(videoDuration - durationSec),
      },
      loudness,
      timing,
    };
    await report.stage(
      "save_dubbing",
      () => ctx.platform.call("dubbing.save", save, z.object({ dubbingId: z.string() })),
      (r) => ({ dubbingId: r.dubbingId }),
    );

    const result: DubbingResult = {
      dubbingId: input.dubbingId,
      transcriptionId: input.transcriptionId,
      translationId: input.translationId,
      sourceLanguage: input.sourceLanguage,
      targetLanguage: input.targetLanguage,
      languageKey: input.languageKey,
      textPreview: translation.segments
        .map((s) => s.text)
        .join(" ")
        .replace(/\s+/g, " ")
        .trim()
        .slice(0, 100),
      segmentCount: segments.length,
      durationSec: round3(videoDuration),
    };
    return DubbingResultSchema.parse(result);
  };
}

/** The source's name as its container reads: the bucket key, or the (redacted) URL's path. */
function sourceName(input: Input): string {
  if (input.sourceKey) return input.sourceKey;
  try {
    return new URL(input.sourceUrl ?? "").pathname;
  } catch {
    return "";
  }
}

async function assignVoices(
  ctx: HandlerContext<Stage>,
  objects: ObjectStore,
  input: Input,
  synth: SynthesisEngine | null,
  labels: readonly string[],
  diarization: Diarization,
  analysis: string,
): Promise<SpeakerVoice[]> {
  const out: SpeakerVoice[] = [];
  // Set when the workspace's allowance of voices made by dubbing ran out: no more are made this run.
  let refused: string | null = null;
  for (const label of labels) {
    const assigned = input.assignedVoices[label];
    if (assigned) {
      const spec = VoiceSpecSchema.safeParse(assigned.spec);
      if (!spec.success)
        throw new StepFailure("invalid_input", `voice ${assigned.voiceId} is not a voice this runner can speak with`, false);
      out.push({ label, voice: spec.data, voiceId: assigned.voiceId, voiceSource: "assigned" });
      continue;
    }
    if (!synth) {
      out.push({ label, voice: null, voiceId: null, voiceSource: null, reason: "tts disabled" });
      continue;
    }
    if (!input.options.voiceCloning.enabled) {
      out.push({ label, voice: null, voiceId: null, voiceSource: null, reason: "no voice assigned and voice cloning disabled" });
      continue;
    }
    if (refused) {
      out.push({ label, voice: null, voiceId: null, voiceSource: null, reason: refused });
      continue;
    }
    const ranges = diarization.turns.length > 0 ? rangesOf(label, diarization.turns) : undefined;
    const referencePath = join(ctx.workDir, `reference-${label}.wav`);
    const voice = await synth.createVoice({
      sampleWavPath: analysis,
      language: input.targetLanguage,
      ...(ranges ? { ranges } : {}),
      referenceOutPath: referencePath,
      signal: ctx.signal,
    });
    const speechSec = voice.matchedTo?.speechSec ?? 0;
    if (speechSec < MIN_VOICE_SAMPLE_SPEECH_SEC) {
      out.push({
        label,
        voice: null,
        voiceId: null,
        voiceSource: null,
        reason: `${round3(speechSec)} s of speech: too little to make a voice from`,
      });
      continue;
    }
    let referenceKey: string | null = null;
    // An s3_presigned job has no URL for a speaker's reference clip: its voice keeps none.
    if (voice.kind === "clone" && !ctx.task.presigned) {
      referenceKey = await objects.upload(`${input.resolvedOutputPrefix ?? ""}voices/${label}.wav`, { path: referencePath }, "audio/wav");
    }
    const created = await ctx.platform.call(
      "voices.create",
      { label, created: { spec: voice, model: synth.model, referenceKey, sampleSpeechSec: round3(speechSec) } },
      // No voiceId: the workspace's plan allows no more voices made by dubbing this month (`reason` says so).
      z.object({ voiceId: z.string().nullable(), reason: z.string().optional() }),
    );
    if (created.voiceId === null) {
      refused = created.reason ?? "no more voices may be made by dubbing this billing period";
      out.push({ label, voice: null, voiceId: null, voiceSource: null, reason: refused });
      continue;
    }
    out.push({ label, voice, voiceId: created.voiceId, voiceSource: "auto_created", ...(voice.kind === "clone" ? { referencePath } : {}) });
  }
  return out;
}

async function synthesizeAll(
  ctx: HandlerContext<Stage>,
  input: Input,
  synth: SynthesisEngine,
  slots: readonly Slot[],
  speakerBySlot: ReadonlyMap<number, string>,
  voiceOf: ReadonlyMap<string, SpeakerVoice>,
  fitted: Map<number, FitResult>,
): Promise<void> {
  const todo = slots.filter((s) => s.text.trim() !== "" && voiceOf.get(speakerBySlot.get(s.id) ?? "")?.voice);
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const slot = todo[next++]!;
      const v = voiceOf.get(speakerBySlot.get(slot.id)!)!;
      const result = await fitToSlot({
        synthesize: (rate, outPath) =>
          synth.synthesize({
            text: slot.text,
            language: input.targetLanguage,
            voice: v.voice!,
            rate,
            outPath,
            signal: ctx.signal,
            ...(v.referencePath ? { referencePath: v.referencePath } : {}),
          }),
        slotSec: slot.end - slot.start,
        outPath: join(ctx.workDir, `seg-${slot.id}.wav`),
        signal: ctx.signal,
      });
      fitted.set(slot.id, result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(ctx.cores, 4)) }, worker));
}

function dubbedSegments(
  slots: readonly Slot[],
  speakerBySlot: ReadonlyMap<number, string>,
  voiceOf: ReadonlyMap<string, SpeakerVoice>,
  fitted: ReadonlyMap<number, FitResult>,
  ttsEnabled: boolean,
): DubbedSegment[] {
  return slots.map((s) => {
    const speaker = speakerBySlot.get(s.id) ?? "SPEAKER_00";
    const f = fitted.get(s.id);
    const speech: DubbedSegment["speech"] = f
      ? "spoken"
      : s.text.trim() === ""
        ? "empty"
        : !ttsEnabled
          ? "tts_disabled"
          : voiceOf.get(speaker)?.voice
            ? "empty"
            : "no_voice";
    return {
      id: s.id,
      speaker,
      sourceStart: s.start,
      sourceEnd: s.sourceEnd,
      slotEnd: round3(s.end),
      text: s.text,
      speech,
      speechStart: f ? s.start : null,
      speechDurationSec: f ? round3(f.speechDurationSec) : null,
      stretch: f ? round3(f.stretch) : null,
      rate: f ? round3(f.rate) : null,
      flags: f ? [...f.flags] : [],
    };
  });
}

export const dubbingHandler = createDubbingHandler();
export type { TranslatedSegment };
