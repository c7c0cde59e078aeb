import { stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import {
  TranscriptSpeakersSchema,
  type dubStep,
  type DubbingSave,
  type DubbingStored,
  type TranscriptSpeakers,
} from "../../../contracts/services/dubbing";
import type { RedactedAudioMode } from "../../../contracts/redaction";
import { TranslatedSegmentSchema, type TranslationSource } from "../../../contracts/services/translation";
import type { StageOf } from "../../../contracts/services/types";
import type { Settings } from "../../../contracts/settings";
import { StepFailure } from "../../../contracts/step-failure";
import { TRANSLATION_BACKENDS } from "../../../contracts/translation-languages";
import { MIN_VOICE_SAMPLE_SPEECH_SEC } from "../../../contracts/services/voice-creation";
import type { Diarization, DiarizationEngine } from "../../engines/diarization/interface";
import type { SeparationEngine } from "../../engines/separation/interface";
import { wavInfo } from "../../engines/synthesis/audio";
import { fitToSlot, type FitResult } from "../../engines/synthesis/fit";
import { VoiceSpecSchema, type SynthesisEngine } from "../../engines/synthesis/interface";
import { noConsentReason } from "../../../contracts/voice-consent";
import type { ConsentAwareSynthesis } from "../shared/consent-voices";
import type { TranslationEngine } from "../../engines/translation/interface";
import { probe } from "../../media/ffmpeg";
import { mergeSpans, spansInCut } from "../../media/redacted-audio";
import { openSource, type AcceptedSource } from "../../media/source";
import type { HandlerContext } from "../../handler";
import { SOURCE, type ObjectStore } from "../../object-store";
import { toolStep } from "../../objects";
import { round3 } from "../../step-input";
import { saveTranslationCall, translateSource, translationSave, uploadSubtitles, type Translated } from "../translation/run";
import {
  dubbedExtension,
  extractTracks,
  mix,
  render,
  writeSpeechTrack,
  type AudioRedaction,
  type MixLoudness,
  type PlacedSpeech,
} from "./audio";
import { spokenPieces, spokenText } from "./spoken-text";
import { synthesizeWithTones } from "./toned-speech";
import type { Speakers, SpeakerVoice } from "./record";
import { tagInPlace } from "./provenance";
import { rangesOf, slotsFor, speakerOf, speechStretches } from "./slots";
import { mapLimit } from "../shared/map-limit";

/**
 * The dubbing step's stages, one function each. The translation's two run on the handler's context
 * (they open their own objects, as a translation job does); the rest on the run opened after them.
 */
type DubbingContext = HandlerContext<StageOf<typeof dubStep>, DubbingStored>;

export interface DubbingRun {
  input: DubbingStored;
  objects: ObjectStore;
  platform: DubbingContext["platform"];
  signal: AbortSignal;
  workDir: string;
  cores: number;
  /** A bucket job's files go under its prefix; an s3_presigned job writes each to its URL by name. */
  presigned: boolean;
  prefix: string;
  paths: { source: string; raw: string; analysis: string; vocals: string; background: string; speech: string; mix: string; video: string };
}

/** The source's name as its container reads: the bucket key, or the (redacted) URL's path. */
function sourceName(input: DubbingStored): string {
  if (input.sourceType !== "s3_presigned") return input.sourceKey;
  try {
    return new URL(input.sourceUrl).pathname;
  } catch {
    return "";
  }
}

export async function openDubbingRun(ctx: DubbingContext): Promise<DubbingRun> {
  const { input, workDir } = ctx;
  const bucketJob = input.sourceType === "s3_presigned" ? null : input;
  const objects = await ctx.openObjects({ [SOURCE]: bucketJob?.sourceKey ?? "" });
  const at = (name: string) => join(workDir, name);
  return {
    input,
    objects,
    platform: ctx.platform,
    signal: ctx.signal,
    workDir,
    cores: ctx.cores,
    presigned: Boolean(ctx.task.presigned),
    prefix: bucketJob?.resolvedOutputPrefix ?? "",
    paths: {
      source: at("source"),
      raw: at("raw_audio.flac"),
      analysis: at("analysis.wav"),
      vocals: at("vocals.flac"),
      background: at("background.flac"),
      speech: at("speech.flac"),
      mix: at("mix.m4a"),
      video: at(`dubbed.${dubbedExtension(sourceName(input))}`),
    },
  };
}

const GivenTranslationSchema = z.object({
  translationId: z.string(),
  translationBackend: z.enum(TRANSLATION_BACKENDS),
  model: z.string(),
  segments: z.array(TranslatedSegmentSchema),
});

/** load_transcription of a given translation: its segments as saved (call `dubbing.translation`). */
export const loadGivenTranslation = (ctx: DubbingContext) => ctx.platform.call("dubbing.translation", {}, GivenTranslationSchema);

/** translate: made here exactly as a translation job makes it, subtitles and record included. */
export async function translate(
  ctx: DubbingContext,
  plan: NonNullable<DubbingStored["translation"]>,
  engine: TranslationEngine,
  source: TranslationSource,
): Promise<Translated> {
  const t = await translateSource(engine, plan, source, ctx.signal);
  await uploadSubtitles(ctx, plan, t.segments, source.speakers);
  await saveTranslationCall(ctx, translationSave(engine, plan, source, t));
  return t;
}

export const download = (run: DubbingRun): Promise<number> => run.objects.download(SOURCE, run.paths.source, run.signal);

/**
 * extract_audio: the raw artifact and a 16 kHz analysis copy. Everything after this is as long as the
 * source measured here: the speech track, the mix and the video, never what the container declares.
 */
export const extractAudio = (run: DubbingRun, limits: Settings["runner"], redaction: AudioRedaction | null): Promise<AcceptedSource> =>
  toolStep(run.signal, async () => {
    const info = await openSource(run.paths.source, { kind: "video", limits, signal: run.signal });
    if (!info.hasVideo) throw new StepFailure("unsupported_media", "the source has no video stream to dub", false);
    if (!info.hasAudio) throw new StepFailure("unsupported_media", "the source has no audio stream to dub", false);
    await extractTracks(info, run.paths.raw, run.paths.analysis, run.signal, redaction);
    return info;
  });

/** What the source transcript says of itself (call `dubbing.speakers`): its speakers, and where its redacted words were. */
export const transcriptFacts = (ctx: DubbingContext): Promise<TranscriptSpeakers> =>
  ctx.platform.call("dubbing.speakers", {}, TranscriptSpeakersSchema);

/** The redacted spans the extraction silences (merged, in the source's timeline); null when the transcript was not redacted. */
export function audioRedaction(facts: TranscriptSpeakers, mode: RedactedAudioMode): AudioRedaction | null {
  const spans = mergeSpans(spansInCut(facts.redactedSpans));
  return spans.length > 0 ? { spans, mode } : null;
}

export const separateAudio = (run: DubbingRun, separator: SeparationEngine, stretches: ReturnType<typeof speechStretches>) =>
  toolStep(run.signal, () =>
    separator.separate({
      audioPath: run.paths.raw,
      speech: stretches,
      duckDb: run.input.engines.duckDb,
      vocalsOut: run.paths.vocals,
      backgroundOut: run.paths.background,
      signal: run.signal,
    }),
  );

export function diarize(run: DubbingRun, diarizer: DiarizationEngine): Promise<Diarization> {
  const { minSpeakers, maxSpeakers } = run.input.options.diarization;
  return diarizer.diarize({
    audioPath: run.paths.analysis,
    ...(minSpeakers ? { minSpeakers } : {}),
    ...(maxSpeakers ? { maxSpeakers } : {}),
    signal: run.signal,
  });
}

/**
 * The source transcript's own speakers (transcriptFacts) as a diarization: its labels in
 * order of first appearance, its turns. Null when the transcript was not diarized.
 */
export function transcriptDiarization(
  t: TranscriptSpeakers,
): { diarization: Diarization; record: { engine: string; model: string } | null } | null {
  if (t.turns.length === 0) return null;
  return { diarization: { turns: t.turns, speakers: [...new Set(t.turns.map((x) => x.speaker))] }, record: t.diarization };
}

/** Each slot's speaker by diarization's turns (one speaker, SPEAKER_00, without any). */
export function speakersOf(segments: Translated["segments"], durationSec: number, diarization: Diarization): Speakers {
  const slots = slotsFor(segments, durationSec);
  const speakerBySlot = new Map(slots.map((s) => [s.id, diarization.turns.length > 0 ? speakerOf(s, diarization.turns) : "SPEAKER_00"]));
  return { slots, speakerBySlot, labels: [...new Set([...diarization.speakers, ...speakerBySlot.values()])].sort() };
}

/**
 * assign_voices, per speaker: the assigned voice, or one made from the speaker's own audio
 * (`voices.create`), or none: marked for manual assignment, left silent. Under the project's
 * `voiceCloning.requireConsent` a voice made here is a clone only for a speaker the Worker found a
 * granted consent for at create (`input.voiceConsent`); the others get a voice profile, and their
 * record's `reason` says why.
 */
export async function assignVoices(
  run: DubbingRun,
  synth: ConsentAwareSynthesis | null,
  labels: readonly string[],
  diarization: Diarization,
): Promise<SpeakerVoice[]> {
  const { input } = run;
  const out: SpeakerVoice[] = [];
  const none = (label: string, reason: string): SpeakerVoice => ({
    label,
    voice: null,
    voiceId: null,
    voiceSource: null,
    reason,
    consent: null,
  });
  // Set when the workspace's allowance of voices made by dubbing ran out: no more are made this run.
  let refused: string | null = null;
  for (const label of labels) {
    const assigned = input.assignedVoices[label];
    if (assigned) {
      const spec = VoiceSpecSchema.safeParse(assigned.spec);
      if (!spec.success)
        throw new StepFailure("invalid_input", `voice ${assigned.voiceId} is not a voice this runner can speak with`, false);
      out.push({ label, voice: spec.data, voiceId: assigned.voiceId, voiceSource: "assigned", consent: null });
      continue;
    }
    if (!synth) {
      out.push(none(label, "tts disabled"));
      continue;
    }
    if (!input.options.voiceCloning.enabled) {
      out.push(none(label, "no voice assigned and voice cloning disabled"));
      continue;
    }
    if (refused) {
      out.push(none(label, refused));
      continue;
    }
    const consent = input.voiceConsent.granted[label] ?? null;
    const profileOnly = input.voiceConsent.required && !consent;
    if (profileOnly && !synth.profileSupports(input.targetLanguage)) {
      out.push(none(label, `${noConsentReason(label)}; the local engine has no voice profile for ${input.targetLanguage}`));
      continue;
    }
    const ranges = diarization.turns.length > 0 ? rangesOf(label, diarization.turns) : undefined;
    const referencePath = join(run.workDir, `reference-${label}.wav`);
    const request = {
      sampleWavPath: run.paths.analysis,
      language: input.targetLanguage,
      ...(ranges ? { ranges } : {}),
      referenceOutPath: referencePath,
      signal: run.signal,
    };
    const voice = profileOnly ? await synth.createProfile(request) : await synth.createVoice(request);
    const speechSec = voice.matchedTo?.speechSec ?? 0;
    if (speechSec < MIN_VOICE_SAMPLE_SPEECH_SEC) {
      out.push(none(label, `${round3(speechSec)} s of speech: too little to make a voice from`));
      continue;
    }
    let referenceKey: string | null = null;
    // An s3_presigned job has no URL for a speaker's reference clip: its voice keeps none.
    if (voice.kind === "clone" && !run.presigned) {
      referenceKey = await run.objects.upload(`${run.prefix}voices/${label}.wav`, { path: referencePath }, "audio/wav");
    }
    const created = await run.platform.call(
      "voices.create",
      {
        label,
        created: {
          spec: voice,
          model: synth.modelFor(voice),
          referenceKey,
          sampleSpeechSec: round3(speechSec),
          ...(profileOnly ? { reason: noConsentReason(label) } : {}),
          consent: voice.kind === "clone" ? consent : null,
        },
      },
      // No voiceId: the workspace's plan allows no more voices made by dubbing this month (`reason` says so).
      z.object({ voiceId: z.string().nullable(), reason: z.string().optional() }),
    );
    if (created.voiceId === null) {
      refused = created.reason ?? "no more voices may be made by dubbing this billing period";
      out.push(none(label, refused));
      continue;
    }
    out.push({
      label,
      voice,
      voiceId: created.voiceId,
      voiceSource: "auto_created",
      ...(voice.kind === "clone" ? { referencePath } : {}),
      ...(profileOnly ? { reason: noConsentReason(label) } : {}),
      consent: voice.kind === "clone" ? consent : null,
    });
  }
  return out;
}

/** synthesize_speech: every segment spoken by its speaker's voice, fitted into its slot (slots.ts). */
export async function synthesizeSpeech(
  run: DubbingRun,
  synth: SynthesisEngine,
  speakers: Speakers,
  voiceOf: ReadonlyMap<string, SpeakerVoice>,
): Promise<Map<number, FitResult>> {
  const { slots, speakerBySlot } = speakers;
  // A slot whose text is only placeholders says nothing: it stays silent.
  const voiced = slots.filter((s) => spokenText(s.text) !== "" && voiceOf.get(speakerBySlot.get(s.id) ?? "")?.voice);
  const results = await mapLimit(voiced, Math.max(1, Math.min(run.cores, 4)), run.signal, (slot, signal) => {
    const v = voiceOf.get(speakerBySlot.get(slot.id)!)!;
    const speak = (text: string, rate: number, outPath: string) =>
      synth.synthesize({
        text,
        language: run.input.targetLanguage,
        voice: v.voice!,
        rate,
        outPath,
        signal,
        ...(v.referencePath ? { referencePath: v.referencePath } : {}),
      });
    // With the tone, a segment that had placeholders is read in pieces with a bleep in each gap.
    const pieces = run.input.engines.redactedAudio === "tone" ? spokenPieces(slot.text) : [];
    return fitToSlot({
      synthesize: async (rate, outPath) => {
        if (!pieces.includes(null)) return speak(spokenText(slot.text), rate, outPath);
        await synthesizeWithTones(pieces, (text, out) => speak(text, rate, out), outPath, signal);
        return { path: outPath, durationSec: (await wavInfo(outPath)).durationSec };
      },
      slotSec: slot.end - slot.start,
      outPath: join(run.workDir, `seg-${slot.id}.wav`),
      signal,
    });
  });
  return new Map(voiced.map((slot, i) => [slot.id, results[i]!]));
}

export const mixAudio = (run: DubbingRun, speakers: Speakers, fitted: ReadonlyMap<number, FitResult>, durationSec: number) =>
  toolStep(run.signal, async (): Promise<MixLoudness> => {
    const placed: PlacedSpeech[] = speakers.slots.flatMap((s) => {
      const f = fitted.get(s.id);
      return f ? [{ path: f.path, start: s.start }] : [];
    });
    const { paths, signal } = run;
    await writeSpeechTrack(placed, durationSec, join(run.workDir, "speech.raw"), paths.speech, join(run.workDir, "decode.f32"), signal);
    return mix(paths.background, paths.speech, durationSec, run.input.engines.mixLoudnessLufs, paths.mix, signal);
  });

/**
 * render_video: the source's picture copied with the mix; the result's own duration, probed. The
 * mix and the video carry the provenance note (provenance.ts).
 */
export const renderVideo = (run: DubbingRun, source: AcceptedSource, tags: Readonly<Record<string, string>> = {}) =>
  toolStep(run.signal, async () => {
    if (Object.keys(tags).length > 0) await tagInPlace(run.paths.mix, tags, run.signal);
    await render(source, run.paths.mix, run.paths.video, run.signal, tags);
    return (await probe(run.paths.video, run.signal)).durationSec;
  });

export async function uploadArtifacts(run: DubbingRun): Promise<{ keys: DubbingSave["artifacts"]; bytes: number }> {
  const { paths, input } = run;
  const lang = input.languageKey;
  const files = {
    rawAudio: { path: paths.raw, name: "raw_audio.flac", type: "audio/flac" },
    vocals: { path: paths.vocals, name: "vocals.flac", type: "audio/flac" },
    background: { path: paths.background, name: "background.flac", type: "audio/flac" },
    speech: { path: paths.speech, name: `speech.${lang}.flac`, type: "audio/flac" },
    mix: { path: paths.mix, name: `mix.${lang}.m4a`, type: "audio/mp4" },
    video: {
      path: paths.video,
      name: `dubbed.${lang}.${dubbedExtension(sourceName(input))}`,
      type: paths.video.endsWith(".mp4") ? "video/mp4" : "video/x-matroska",
    },
  } as const;
  let bytes = 0;
  const put = async (name: keyof typeof files): Promise<string> => {
    const f = files[name];
    // A bucket job names the file by key; a presigned one by its output name (rawAudio, …, video).
    const key = await run.objects.upload(run.presigned ? name : `${run.prefix}${f.name}`, { path: f.path }, f.type);
    bytes += (await stat(f.path)).size;
    return key;
  };
  // One after another, in this order.
  const keys = {
    rawAudio: await put("rawAudio"),
    vocals: await put("vocals"),
    background: await put("background"),
    speech: await put("speech"),
    mix: await put("mix"),
    video: await put("video"),
  };
  return { keys, bytes };
}

export const saveDubbing = (run: DubbingRun, save: DubbingSave) =>
  run.platform.call("dubbing.save", save, z.object({ dubbingId: z.string() }));
