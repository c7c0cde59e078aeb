import type { TranslationSource } from "../../../contracts/services/translation";
import type { Diarization, DiarizationEngine } from "../../engines/diarization/interface";
import type { SeparationEngine } from "../../engines/separation/interface";
import type { FitResult } from "../../engines/synthesis/fit";
import type { SynthesisEngine } from "../../engines/synthesis/interface";
import type { AcceptedSource } from "../../media/source";
import { round3 } from "../../step-input";
import type { Translated } from "../translation/run";
import type { Loudness } from "./audio";
import type { SpeakerVoice } from "./record";

/** What each dubbing stage reports when it completes (its progress event's details). */

export const givenTranslationDetails = (g: { translationId: string; segments: readonly unknown[] }) => ({
  translationId: g.translationId,
  segments: g.segments.length,
});

export const transcriptDetails = (d: TranslationSource) => ({ segments: d.segments.length, sourceLayer: d.sourceLayer });

export const translateDetails = (translationId: string, backend: string) => (t: Translated) => ({
  translationId,
  translationBackend: backend,
  model: t.model,
  segments: t.segments.length,
});

export const sourceDetails = (s: AcceptedSource) => ({
  durationSec: round3(s.durationSec),
  ...(s.declaredDurationSec !== null ? { declaredDurationSec: round3(s.declaredDurationSec) } : {}),
  format: s.format,
});

export const separateDetails = (separator: SeparationEngine, speechStretches: number, duckDb: number) => () => ({
  engine: separator.engine,
  method: separator.method,
  speechStretches,
  duckDb,
});

export const diarizeDetails = (d: DiarizationEngine) => (r: Diarization) => ({
  engine: d.engine,
  model: d.model,
  speakers: r.speakers,
  turns: r.turns.length,
});

export const transcriptSpeakersDetails = (r: Diarization) => ({
  source: "transcript",
  speakers: r.speakers,
  turns: r.turns.length,
});

export const voicesDetails = (vs: readonly SpeakerVoice[]) => ({
  voiced: vs.filter((v) => v.voice).map((v) => `${v.label}:${v.voiceSource}`),
  needsManualAssignment: vs.filter((v) => !v.voice).map((v) => v.label),
});

export const previousSpeakersDetails = (dubbingId: string) => (r: Diarization) => ({
  source: "previous_dub",
  dubbingId,
  speakers: r.speakers,
  turns: r.turns.length,
});

export const speechDetails =
  (synth: SynthesisEngine, reused = 0) =>
  (fitted: ReadonlyMap<number, FitResult>) => ({
    engine: synth.engine,
    model: synth.model,
    spoken: fitted.size,
    ...(reused > 0 ? { reused } : {}),
    rateRaised: [...fitted.values()].filter((f) => f.flags.includes("rate_raised")).length,
    trimmed: [...fitted.values()].filter((f) => f.flags.includes("trimmed")).length,
  });

export const renderDetails = (sourceDurationSec: number) => (d: number) => ({
  durationSec: round3(d),
  sourceDurationSec: round3(sourceDurationSec),
  videoCodec: "copy",
});

export const mixDetails = (targetLufs: number) => (l: Loudness) => ({ ...l, targetLufs });
