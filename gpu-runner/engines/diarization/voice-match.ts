import { DEFAULT_WINDOWS, featureUnits, featureWindows, type FeatureWindow } from "./features";
import type { Pcm16 } from "./pcm";
import { DEFAULT_VAD, speechProbabilities, speechRegions, type SpeechRegion } from "./silero-vad";

/**
 * Whether two recordings hold the same voice, by the local diarizer's own features (features.ts:
 * the means and deviations of MFCCs c1–c12 over 1.5 s windows, and the window's median log pitch),
 * for a consent recording against the subject speaker's turns in the source media.
 *
 * The distance is the root mean square, over the 25 feature dimensions, of the difference between
 * the two recordings' mean feature vectors, each dimension divided by the within-voice spread: the
 * pooled standard deviation of that dimension over the windows of both recordings, except pitch,
 * which is divided by the diarizer's fixed pitch unit (3.3 %), as clustering weighs it. So 1 means
 * the two voices differ, on average per dimension, by as much as one voice varies from window to
 * window; what is said differs between the recordings, and averaging over windows evens that out.
 * The threshold is measured on the project's synthetic voices (docs/api.md, "Consent for cloned
 * voices"; test/media/voice-consent-handler.test.ts).
 */
export interface VoiceComparison {
  /** Null when either side has no window of speech to compare. */
  distance: number | null;
  recordingWindows: number;
  subjectWindows: number;
  /** Median pitch of each side (Hz), for the record's reason. */
  recordingF0Hz: number | null;
  subjectF0Hz: number | null;
}

/** Speech regions of `pcm` (Silero VAD), optionally kept to the given ranges (seconds). */
export async function speechIn(
  pcm: Pcm16,
  signal: AbortSignal,
  ranges?: readonly { start: number; end: number }[],
): Promise<SpeechRegion[]> {
  const probs = await speechProbabilities(pcm, signal);
  const regions = speechRegions(probs, pcm.samples.length, pcm.sampleRate, DEFAULT_VAD);
  if (!ranges) return regions;
  const out: SpeechRegion[] = [];
  for (const r of regions)
    for (const t of ranges) {
      const start = Math.max(r.start, Math.round(t.start * pcm.sampleRate));
      const end = Math.min(r.end, Math.round(t.end * pcm.sampleRate));
      if (end > start) out.push({ start, end });
    }
  return out.sort((a, b) => a.start - b.start);
}

export function compareVoices(
  recording: { pcm: Pcm16; regions: readonly SpeechRegion[] },
  subject: { pcm: Pcm16; regions: readonly SpeechRegion[] },
  signal: AbortSignal,
): VoiceComparison {
  const a = featureWindows(recording.pcm, recording.regions, signal).map((w: FeatureWindow) => w.features);
  const b = featureWindows(subject.pcm, subject.regions, signal).map((w: FeatureWindow) => w.features);
  const f0 = (rows: number[][]) => (rows.length ? Math.round(Math.exp(medianOf(rows.map((r) => r.at(-1)!)))) : null);
  const base = { recordingWindows: a.length, subjectWindows: b.length, recordingF0Hz: f0(a), subjectF0Hz: f0(b) };
  if (a.length === 0 || b.length === 0) return { distance: null, ...base };
  const units = featureUnits(DEFAULT_WINDOWS);
  const dims = a[0]!.length;
  let sum = 0;
  for (let d = 0; d < dims; d++) {
    const ma = meanOf(a, d);
    const mb = meanOf(b, d);
    const pooled = Math.sqrt((sqDev(a, d, ma) + sqDev(b, d, mb)) / Math.max(1, a.length + b.length - 2));
    const scale = units[d] ?? (pooled > 1e-9 ? pooled : 1);
    sum += ((ma - mb) / scale) ** 2;
  }
  return { distance: Math.sqrt(sum / dims), ...base };
}

const meanOf = (rows: number[][], d: number) => rows.reduce((s, r) => s + r[d]!, 0) / rows.length;
const sqDev = (rows: number[][], d: number, m: number) => rows.reduce((s, r) => s + (r[d]! - m) ** 2, 0);

function medianOf(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)]!;
}
