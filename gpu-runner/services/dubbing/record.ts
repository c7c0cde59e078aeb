import type { DubbedSegment, DubbingResult, DubbingSave, DubbingStored, Regenerated } from "../../../contracts/services/dubbing";
import type { TranslatedSegment } from "../../../contracts/services/translation";
import type { FitResult } from "../../engines/synthesis/fit";
import type { VoiceSpec } from "../../engines/synthesis/interface";
import type { StageReporter } from "../../../contracts/step-kit";
import type { GrantedConsent } from "../../../contracts/voice-consent";
import { round3 } from "../../step-input";
import type { Slot } from "./slots";

/** What a dubbing reports: its segments and speakers as spoken, the `dubbing.save` record, the step's result. */

export interface SpeakerVoice {
  label: string;
  voice: VoiceSpec | null;
  voiceId: string | null;
  voiceSource: "assigned" | "auto_created" | null;
  referencePath?: string;
  reason?: string;
  /** The granted consent a clone was made under; null when the voice is no clone made here. */
  consent: GrantedConsent | null;
}

/** Who speaks each slot (diarization's turns), and every speaker label in order. */
export interface Speakers {
  slots: readonly Slot[];
  speakerBySlot: ReadonlyMap<number, string>;
  labels: readonly string[];
}

export function dubbedSegments(
  speakers: Speakers,
  voiceOf: ReadonlyMap<string, SpeakerVoice>,
  fitted: ReadonlyMap<number, FitResult>,
  ttsEnabled: boolean,
): DubbedSegment[] {
  return speakers.slots.map((s) => {
    const speaker = speakers.speakerBySlot.get(s.id) ?? "SPEAKER_00";
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

/** The record `dubbing.save` stores: everything but the engines, loudness, artifacts and timing comes from the segments. */
export function dubbingSave(
  parts: Omit<DubbingSave, "durationSec" | "speakers" | "sync" | "regenerated"> & { voices: readonly SpeakerVoice[] },
  durations: { videoSec: number; sourceSec: number },
  regenerated?: Regenerated,
): DubbingSave {
  const { voices, segments, ...rest } = parts;
  const spoken = segments.filter((s) => s.speech === "spoken");
  return {
    translationId: rest.translationId,
    durationSec: round3(durations.videoSec),
    artifacts: rest.artifacts,
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
        consent: v.consent,
      };
    }),
    segments,
    engines: rest.engines,
    ...(regenerated ? { regenerated } : {}),
    sync: {
      maxStartOffsetSec: round3(Math.max(0, ...spoken.map((s) => Math.abs((s.speechStart ?? s.sourceStart) - s.sourceStart)))),
      maxOverrunRatio: round3(
        Math.max(
          0,
          ...spoken.map((s) => ((s.speechStart ?? 0) + (s.speechDurationSec ?? 0) - s.slotEnd) / Math.max(s.slotEnd - s.sourceStart, 1e-3)),
        ),
      ),
      durationDeltaSec: round3(durations.videoSec - durations.sourceSec),
    },
    loudness: rest.loudness,
    timing: rest.timing,
  };
}

export function dubbingResult(
  input: DubbingStored,
  translated: readonly TranslatedSegment[],
  segmentCount: number,
  videoSec: number,
): DubbingResult {
  return {
    dubbingId: input.dubbingId,
    transcriptionId: input.transcriptionId,
    translationId: input.translationId,
    sourceLanguage: input.sourceLanguage,
    targetLanguage: input.targetLanguage,
    languageKey: input.languageKey,
    textPreview: translated
      .map((s) => s.text)
      .join(" ")
      .replace(/\s+/g, " ")
      .trim()
      .slice(0, 100),
    segmentCount,
    durationSec: round3(videoSec),
  };
}

/**
 * Each timed part's seconds, as the record's `timing` keeps them: `timed` for any part, `stage` for a
 * progress stage timed under its own name.
 */
export function stageTimer<Stage extends string>(report: StageReporter<Stage>) {
  const timing: Record<string, number> = {};
  const timed = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      timing[name] = round3((performance.now() - t0) / 1000);
    }
  };
  const stage = <T>(name: Stage, fn: () => Promise<T>, details?: (result: T) => Record<string, unknown>): Promise<T> =>
    report.stage(name, () => timed(name, fn), details);
  return { timing, timed, stage };
}
