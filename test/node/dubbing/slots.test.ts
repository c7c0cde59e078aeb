import { describe, expect, it } from "vitest";
import { rangesOf, SLOT_GRACE_SEC, slotsFor, speakerOf, speechStretches } from "../../../gpu-runner/services/dubbing/slots";

/** Where dubbed speech may go and who speaks it (gpu-runner/services/dubbing/slots.ts). */

const seg = (id: number, start: number, end: number, text = `segment ${id}`) => ({ id, start, end, text, sourceText: text });
const turn = (start: number, end: number, speaker: string) => ({ start, end, speaker });

describe("slots", () => {
  it("a slot starts at its segment's start and runs a short grace past its end", () => {
    const [a] = slotsFor([seg(0, 1, 3), seg(1, 10, 12)], 20);
    expect(a).toMatchObject({ id: 0, start: 1, end: 3 + SLOT_GRACE_SEC, sourceEnd: 3 });
  });

  it("never reaches past the next segment's start", () => {
    const [a] = slotsFor([seg(0, 1, 3), seg(1, 3.2, 5)], 20);
    expect(a!.end).toBe(3.2);
  });

  it("never reaches past the end of the media", () => {
    const slots = slotsFor([seg(0, 18, 19.8)], 20);
    expect(slots[0]!.end).toBe(20);
  });

  it("keeps its segment's end when the next segment overlaps it (the source's own overlap is not ours to fix)", () => {
    const [a] = slotsFor([seg(0, 1, 4), seg(1, 3, 6)], 20);
    expect(a!.end).toBe(3);
    expect(a!.start).toBe(1);
  });

  it("orders slots by time whatever the segments' order", () => {
    expect(slotsFor([seg(1, 5, 6), seg(0, 1, 2)], 10).map((s) => s.id)).toEqual([0, 1]);
  });
});

describe("speakers", () => {
  const turns = [turn(0, 4, "SPEAKER_00"), turn(4, 9, "SPEAKER_01"), turn(9, 12, "SPEAKER_00")];

  it("a segment belongs to the speaker whose turns overlap it most", () => {
    expect(speakerOf({ start: 3, end: 8 }, turns)).toBe("SPEAKER_01");
    expect(speakerOf({ start: 0, end: 4.5 }, turns)).toBe("SPEAKER_00");
  });

  it("a segment no turn overlaps belongs to the nearest turn's speaker", () => {
    expect(speakerOf({ start: 12.5, end: 13 }, turns)).toBe("SPEAKER_00");
  });

  it("with no turns at all, the segment is SPEAKER_00's", () => {
    expect(speakerOf({ start: 1, end: 2 }, [])).toBe("SPEAKER_00");
  });

  it("a speaker's ranges are their turns", () => {
    expect(rangesOf("SPEAKER_00", turns)).toEqual([
      { start: 0, end: 4 },
      { start: 9, end: 12 },
    ]);
  });
});

describe("speech stretches", () => {
  it("merges segments separated by short gaps, keeps long pauses apart", () => {
    expect(speechStretches([seg(0, 0, 2), seg(1, 2.2, 4), seg(2, 6, 7)])).toEqual([
      { start: 0, end: 4 },
      { start: 6, end: 7 },
    ]);
  });
});
