import { describe, expect, it } from "vitest";
import type { DubbedSegment } from "../../../contracts/services/dubbing";
import { planReuse, type ReuseInput } from "../../../gpu-runner/services/dubbing/reuse";
import { slotsFor } from "../../../gpu-runner/services/dubbing/slots";

/** Which segments of a regenerated dub keep the previous dub's speech (gpu-runner/services/dubbing/reuse.ts). */

const DURATION = 60;
const texts = ["Buenos días.", "Hola, ¿qué tal?", "Muy bien, gracias.", "Hasta luego."];
const segments = (edit: (s: { id: number; start: number; end: number; text: string }) => void = () => {}) =>
  texts.map((text, id) => {
    const s = { id, start: id * 10, end: id * 10 + 4, text };
    edit(s);
    return { ...s, sourceText: s.text };
  });
const speakerOf = (id: number) => (id % 2 === 0 ? "SPEAKER_00" : "SPEAKER_01");

/** The previous dub's record of these segments, every one spoken by its speaker. */
function previousOf(segs: ReturnType<typeof segments>): DubbedSegment[] {
  return slotsFor(segs, DURATION).map((s) => ({
    id: s.id,
    speaker: speakerOf(s.id),
    sourceStart: s.start,
    sourceEnd: s.sourceEnd,
    slotEnd: Math.round(s.end * 1000) / 1000,
    text: s.text,
    speech: "spoken",
    speechStart: s.start,
    speechDurationSec: 2.5,
    stretch: 1,
    rate: 1,
    flags: [],
  }));
}

const VOICES = new Map([
  ["SPEAKER_00", "vce_a"],
  ["SPEAKER_01", "vce_b"],
]);

function plan(now: ReturnType<typeof segments>, over: Partial<ReuseInput> = {}) {
  const slots = slotsFor(now, DURATION);
  return planReuse({
    previous: previousOf(segments()),
    previousVoiceOf: VOICES,
    slots,
    speakerBySlot: new Map(slots.map((s) => [s.id, speakerOf(s.id)])),
    voiceOf: VOICES,
    sameSpeechEngine: true,
    ...over,
  });
}

const keptIds = (p: ReturnType<typeof plan>) => [...p.kept.keys()].sort();
const droppedIds = (p: ReturnType<typeof plan>) => p.dropped.map((d) => d.id).sort();

describe("segment reuse", () => {
  it("nothing changed: every segment keeps its speech", () => {
    const p = plan(segments());
    expect(keptIds(p)).toEqual([0, 1, 2, 3]);
    expect(p.dropped).toEqual([]);
  });

  it("a segment whose translated text changed is spoken again; the others keep theirs", () => {
    const p = plan(segments((s) => s.id === 2 && (s.text = "Muy bien, ¿y tú?")));
    expect(keptIds(p)).toEqual([0, 1, 3]);
    expect(droppedIds(p)).toEqual([2]);
  });

  it("a segment whose slot moved is spoken again, though its text is the same", () => {
    const p = plan(segments((s) => s.id === 1 && (s.start += 0.5)));
    expect(droppedIds(p)).toEqual([1]);
  });

  it("a segment whose slot end moved (the next segment now starts earlier) is spoken again", () => {
    // Segment 2 starts at 14.2, inside segment 1's grace: segment 1's slot now ends there.
    const p = plan(segments((s) => s.id === 2 && ((s.start = 14.2), (s.end = 18))));
    expect(droppedIds(p)).toEqual([1, 2]);
  });

  it("a time difference below the record's millisecond rounding is no change", () => {
    const p = plan(segments((s) => s.id === 3 && (s.start += 0.0004)));
    expect(keptIds(p)).toEqual([0, 1, 2, 3]);
  });

  it("a segment now given to another speaker is spoken again", () => {
    const slots = slotsFor(segments(), DURATION);
    const speakerBySlot = new Map(slots.map((s) => [s.id, s.id === 0 ? "SPEAKER_01" : speakerOf(s.id)]));
    expect(droppedIds(plan(segments(), { speakerBySlot }))).toEqual([0]);
  });

  it("a speaker now speaking with another voice has all their segments spoken again", () => {
    const voiceOf = new Map([...VOICES, ["SPEAKER_01", "vce_c"]]);
    expect(droppedIds(plan(segments(), { voiceOf }))).toEqual([1, 3]);
  });

  it("another speech engine or model: nothing is kept", () => {
    const p = plan(segments(), { sameSpeechEngine: false });
    expect(p.kept.size).toBe(0);
    expect(droppedIds(p)).toEqual([0, 1, 2, 3]);
  });

  it("a segment the previous dub did not speak has no speech to keep", () => {
    const previous = previousOf(segments()).map((s) =>
      s.id === 1 ? { ...s, speech: "no_voice" as const, speechStart: null, speechDurationSec: null } : s,
    );
    const p = plan(segments(), { previous });
    expect(keptIds(p)).toEqual([0, 2, 3]);
    expect(p.dropped).toEqual([]);
  });

  it("a segment gone from the transcript has its speech dropped", () => {
    const p = plan(segments().filter((s) => s.id !== 3));
    expect(keptIds(p)).toEqual([0, 1, 2]);
    expect(droppedIds(p)).toEqual([3]);
  });
});
