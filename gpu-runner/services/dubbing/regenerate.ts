import { existsSync } from "node:fs";
import { extname, join } from "node:path";
import {
  PreviousDubbingRecordSchema,
  type DubbedSegment,
  type DubbingSave,
  type PreviousDubbing,
  type Regenerated,
} from "../../../contracts/services/dubbing";
import type { Settings } from "../../../contracts/settings";
import { StepFailure } from "../../../contracts/step-failure";
import type { Diarization } from "../../engines/diarization/interface";
import type { FitResult } from "../../engines/synthesis/fit";
import { VoiceSpecSchema } from "../../engines/synthesis/interface";
import { openSource, type AcceptedSource } from "../../media/source";
import { toolStep } from "../../objects";
import { extractAnalysis, measureLoudness, mix, MIX_RATE, type MixLoudness, type PlacedSpeech } from "./audio";
import { spliceMix } from "./mix-splice";
import type { Speakers, SpeakerVoice } from "./record";
import { planReuse, type ReusePlan } from "./reuse";
import { speechStretches } from "./slots";
import { decodePreviousTrack, audioStreamInfo, spliceSpeechTrack } from "./splice";
import { extractAudio, type DubbingRun } from "./stages";
import type { StoredConsents } from "../../../contracts/voice-consent";

/**
 * A dub made with `options.regenerateFrom` (docs/api.md, "Regenerating a dub"): the previous dub's
 * record (call `dubbing.previous`) and artifacts read back, checked, and reused where still valid;
 * when they cannot be (gone, another length or rate), the dub is made in full and its record says why.
 */

type DubbingContextLike = Pick<DubbingRun, "platform">;

/** The previous dub as this run may use it. */
export interface Previous {
  input: PreviousDubbing;
  record: DubbingSave;
  /** Its speech track decoded to raw PCM, `samples` long. */
  speechPcm: string;
  samples: number;
  /** Its mix, when it could be read back (else the mix is made whole). */
  mixPath: string | null;
}

/** Why the previous dub is not used: the job dubs in full. */
export interface Fallback {
  input: PreviousDubbing;
  reason: string;
}

export const loadPreviousRecord = async (run: DubbingContextLike) =>
  (await run.platform.call("dubbing.previous", {}, PreviousDubbingRecordSchema)).record;

/** A failed read of a previous artifact that means "it is not there any more" (not a passing fault: those are retried). */
const GONE = new Set(["source_not_found", "source_access_denied"]);

/**
 * extract_audio of a regeneration: the source opened (its measured duration) and the previous dub's
 * raw audio, vocals, background and speech track read back instead of extracted; each checked
 * (48 kHz, as long as the source). Anything missing or different: the ordinary extraction, and why.
 */
export async function reuseSourceAudio(
  run: DubbingRun,
  limits: Settings["runner"],
  previous: PreviousDubbing,
  record: DubbingSave | null,
): Promise<{ source: AcceptedSource; previous: Previous | Fallback }> {
  // Only called when nothing is to be silenced (handler.ts): a fallback extracts without redaction.
  const fallback = async (reason: string) => ({ source: await extractAudio(run, limits, null), previous: { input: previous, reason } });
  if (!record) return fallback(`dubbing ${previous.dubbingId} has no saved record any more`);
  const source = await toolStep(run.signal, () => openSource(run.paths.source, { kind: "video", limits, signal: run.signal }));
  if (!source.hasVideo || !source.hasAudio) return fallback("the source has no video or audio stream");
  const speechFlac = join(run.workDir, "previous-speech.flac");
  const wanted = [
    ["rawAudio", run.paths.raw],
    ["vocals", run.paths.vocals],
    ["background", run.paths.background],
    ["speech", speechFlac],
  ] as const;
  for (const [name, path] of wanted) {
    try {
      await run.objects.download(previous.artifacts[name], path, run.signal);
    } catch (err) {
      if (err instanceof StepFailure && GONE.has(err.code)) return fallback(`the previous ${name} artifact cannot be read: ${err.message}`);
      throw err;
    }
  }
  // Raw audio and background are as long as the source's audio stream (which may end before its
  // picture); the speech track is as long as the source itself, to the sample (decodePreviousTrack).
  const lengths: number[] = [];
  for (const [name, path] of wanted.slice(0, 3)) {
    const info = await audioStreamInfo(path, run.signal);
    if (!info || info.sampleRate !== MIX_RATE || !(info.durationSec > 0))
      return fallback(
        `the previous ${name} artifact is ${info ? `${info.sampleRate} Hz audio` : "not readable audio"}, not ${MIX_RATE} Hz`,
      );
    lengths.push(info.durationSec);
  }
  if (Math.max(...lengths) - Math.min(...lengths) > 0.05)
    return fallback(`the previous raw audio, vocals and background differ in length (${lengths.join(", ")} s)`);
  const speechPcm = join(run.workDir, "previous-speech.pcm");
  const track = await decodePreviousTrack(speechFlac, source.durationSec, speechPcm, run.signal);
  if (!track.ok) return fallback(track.reason);
  return { source, previous: { input: previous, record, speechPcm, samples: track.samples, mixPath: await previousMix(run, record) } };
}

/** The previous mix, to splice (mix-splice.ts): only with the gain it was made at, which older records lack. */
async function previousMix(run: DubbingRun, record: DubbingSave): Promise<string | null> {
  const key = record.artifacts.mix;
  if (!key || record.loudness.gainDb === undefined) return null;
  const path = join(run.workDir, `previous-mix${extname(key) || ".m4a"}`);
  try {
    await run.objects.download(key, path, run.signal);
  } catch (err) {
    if (err instanceof StepFailure && GONE.has(err.code)) return null;
    throw err;
  }
  return path;
}

export const isReusable = (p: Previous | Fallback | null): p is Previous => p !== null && "record" in p;

/**
 * The previous background and vocals stand when they were separated the same way over the same
 * speech: the same engine and method, the same ducking, the same speech stretches (the source
 * segments' times). Else separation runs again, on the previous raw audio.
 */
export function separationStands(
  previous: Previous,
  now: { engine: string; method: string; duckDb: number },
  segments: readonly { start: number; end: number }[],
): boolean {
  const was = previous.record.engines.separation;
  if (was.engine !== now.engine || was.method !== now.method || was.duckDb !== now.duckDb) return false;
  const before = speechStretches(previous.record.segments.map((s) => ({ start: s.sourceStart, end: s.sourceEnd })));
  const after = speechStretches(segments);
  return (
    before.length === after.length &&
    before.every((b, i) => Math.abs(b.start - after[i]!.start) < 1e-3 && Math.abs(b.end - after[i]!.end) < 1e-3)
  );
}

/** Who spoke when in the previous dub, as a diarization: each segment's speaker over its source times. */
export function previousDiarization(previous: Previous): Diarization {
  const turns = previous.record.segments.map((s) => ({ start: s.sourceStart, end: s.sourceEnd, speaker: s.speaker }));
  return { turns, speakers: [...new Set(turns.map((t) => t.speaker))] };
}

/**
 * The previous dub's voices for the speakers the request did not assign anew; the rest are left to
 * assign_voices. A cloned voice is kept only while its speaker's consent stands when the project
 * requires one (a consent revoked since, or a policy turned on since: assign_voices decides again).
 */
export function previousVoices(
  previous: PreviousDubbing,
  labels: readonly string[],
  assigned: Readonly<Record<string, unknown>>,
  consents: StoredConsents,
) {
  const reused: SpeakerVoice[] = [];
  const remaining: string[] = [];
  for (const label of labels) {
    const v = previous.voices[label];
    const spec = VoiceSpecSchema.safeParse(v?.spec);
    const consent = consents.granted[label] ?? null;
    const allowed = spec.success && (spec.data.kind !== "clone" || !consents.required || consent !== null);
    if (v && spec.success && allowed && !(label in assigned))
      reused.push({
        label,
        voice: spec.data,
        voiceId: v.voiceId,
        voiceSource: v.voiceSource,
        consent: spec.data.kind === "clone" ? consent : null,
      });
    else remaining.push(label);
  }
  return { reused, remaining };
}

/** The analysis copy, made (once) only when the source must be diarized or a voice made from it after all. */
export const ensureAnalysis = (run: DubbingRun, source: AcceptedSource) =>
  existsSync(run.paths.analysis) ? Promise.resolve() : toolStep(run.signal, () => extractAnalysis(source, run.paths.analysis, run.signal));

export function reusePlan(
  previous: Previous,
  speakers: Speakers,
  voiceOf: ReadonlyMap<string, SpeakerVoice>,
  speech: { engine: string; model: string } | null,
) {
  const was = previous.record.engines.speech;
  return planReuse({
    previous: previous.record.segments,
    previousVoiceOf: new Map(previous.record.speakers.map((s) => [s.label, s.voiceId])),
    slots: speakers.slots,
    speakerBySlot: speakers.speakerBySlot,
    voiceOf: new Map([...voiceOf].map(([label, v]) => [label, v.voice ? v.voiceId : null])),
    sameSpeechEngine: speech !== null && was !== null && was.engine === speech.engine && was.model === speech.model,
  });
}

/**
 * A splice of the previous mix pays only while the changed stretches are a small part of the dub;
 * beyond this share, encoding the whole mix again costs about the same.
 */
const SPLICE_MIX_UP_TO = 0.3;

/**
 * mix_audio of a regeneration: the previous speech track spliced (splice.ts); then, when the
 * background stands and the previous mix and its gain are at hand, the previous mix spliced around
 * the changed stretches (mix-splice.ts) and measured; else mixed whole as any dub's.
 */
export const mixSpliced = (
  run: DubbingRun,
  previous: Previous,
  plan: ReusePlan,
  keptBackground: boolean,
  speakers: Speakers,
  fitted: ReadonlyMap<number, FitResult>,
  durationSec: number,
) =>
  toolStep(run.signal, async (): Promise<MixLoudness> => {
    const placed: PlacedSpeech[] = speakers.slots.flatMap((s) => {
      const f = fitted.get(s.id);
      return f ? [{ path: f.path, start: s.start }] : [];
    });
    const kept = [...plan.kept.values()].map((k) => ({ speechStart: k.speechStart ?? k.sourceStart }));
    const dropped = plan.dropped.map((d) => d.speechStart ?? d.sourceStart);
    const { paths, signal } = run;
    await spliceSpeechTrack(
      previous.speechPcm,
      previous.samples,
      kept,
      dropped,
      placed,
      paths.speech,
      join(run.workDir, "decode.f32"),
      signal,
    );
    const at = (sec: number) => Math.round(sec * MIX_RATE);
    const changed = [
      ...plan.dropped.map((d) => [at(d.speechStart ?? d.sourceStart), at(d.slotEnd)] as const),
      ...speakers.slots.filter((s) => fitted.has(s.id)).map((s) => [at(s.start), at(s.end)] as const),
    ];
    const changedSamples = changed.reduce((sum, [a, b]) => sum + (b - a), 0);
    const gainDb = previous.record.loudness.gainDb;
    if (keptBackground && previous.mixPath && gainDb !== undefined && changedSamples <= SPLICE_MIX_UP_TO * previous.samples) {
      await spliceMix({
        previousMix: previous.mixPath,
        background: paths.background,
        speech: paths.speech,
        gainDb,
        durationSec,
        changed,
        out: paths.mix,
        workDir: run.workDir,
        signal,
      });
      return { ...(await measureLoudness(paths.mix, signal)), gainDb };
    }
    return mix(paths.background, paths.speech, durationSec, run.input.engines.mixLoudnessLufs, paths.mix, signal);
  });

/** The record's segments: the kept ones exactly as the previous dub recorded them, the rest as spoken now. */
export const withKept = (segments: readonly DubbedSegment[], plan: ReusePlan | null): DubbedSegment[] =>
  segments.map((s) => plan?.kept.get(s.id) ?? s);

export function regeneratedRecord(
  p: Previous | Fallback,
  parts: {
    plan: ReusePlan | null;
    fitted: ReadonlyMap<number, FitResult>;
    separation: boolean;
    diarization: boolean;
    voices: readonly string[];
  },
): Regenerated {
  const synthesized = [...parts.fitted.keys()].sort((a, b) => a - b);
  if (!isReusable(p))
    return {
      fromDubbingId: p.input.dubbingId,
      mode: "full",
      reason: p.reason,
      reused: { sourceAudio: false, separation: false, diarization: false, voices: [...parts.voices] },
      segmentsSynthesized: synthesized,
      segmentsReused: [],
    };
  return {
    fromDubbingId: p.input.dubbingId,
    mode: "partial",
    reused: { sourceAudio: true, separation: parts.separation, diarization: parts.diarization, voices: [...parts.voices] },
    segmentsSynthesized: synthesized,
    segmentsReused: [...(parts.plan?.kept.keys() ?? [])].sort((a, b) => a - b),
  };
}
