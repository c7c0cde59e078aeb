import type { DubbedSegment } from "../../../contracts/services/dubbing";
import type { Slot } from "./slots";

/**
 * Which segments of a regenerated dub keep the previous dub's speech (docs/api.md, "Regenerating a
 * dub"). A segment keeps it when the previous dub spoke it and nothing that shaped that speech
 * changed: the same segment id, the same translated text, the same slot (start and end, to the
 * millisecond the record keeps), the same speaker, spoken by the same voice id, with the same speech
 * engine and model. Everything else is spoken again.
 */

/** The record keeps slot times to the millisecond (round3): within this, a slot is the same. */
const SAME_TIME_SEC = 0.0015;

export interface ReuseInput {
  previous: readonly DubbedSegment[];
  /** The previous dub's voice id per speaker label (null: that speaker had none). */
  previousVoiceOf: ReadonlyMap<string, string | null>;
  slots: readonly Slot[];
  speakerBySlot: ReadonlyMap<number, string>;
  /** This dub's voice id per speaker label. */
  voiceOf: ReadonlyMap<string, string | null>;
  /** False when the speech engine or model differs from the previous dub's: nothing is kept. */
  sameSpeechEngine: boolean;
}

export interface ReusePlan {
  /** The previous record's entry of every segment whose speech is kept, by id. */
  kept: ReadonlyMap<number, DubbedSegment>;
  /** The previous dub's spoken segments whose speech is dropped (changed, moved or gone). */
  dropped: readonly DubbedSegment[];
}

const near = (a: number, b: number) => Math.abs(a - b) <= SAME_TIME_SEC;

export function planReuse(r: ReuseInput): ReusePlan {
  const previousById = new Map(r.previous.map((p) => [p.id, p]));
  const kept = new Map<number, DubbedSegment>();
  for (const slot of r.slots) {
    const p = previousById.get(slot.id);
    if (!r.sameSpeechEngine || !p || p.speech !== "spoken" || p.speechStart === null || p.speechDurationSec === null) continue;
    const speaker = r.speakerBySlot.get(slot.id) ?? "SPEAKER_00";
    const voice = r.voiceOf.get(speaker) ?? null;
    const unchanged =
      p.text === slot.text &&
      near(p.sourceStart, slot.start) &&
      near(p.slotEnd, slot.end) &&
      p.speaker === speaker &&
      voice !== null &&
      (r.previousVoiceOf.get(p.speaker) ?? null) === voice;
    if (unchanged) kept.set(slot.id, p);
  }
  const dropped = r.previous.filter((p) => p.speech === "spoken" && p.speechStart !== null && !kept.has(p.id));
  return { kept, dropped };
}
