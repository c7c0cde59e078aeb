import { describe, expect, it } from "vitest";
import { normaliseTurns, speakerLabel } from "../../../gpu-runner/engines/diarization/turns";

/** The turn shape every diarization backend hands over (gpu-runner/engines/diarization/turns.ts). */
describe("diarization turns", () => {
  it("labels speakers SPEAKER_00, SPEAKER_01, … in order of first appearance, whatever the backend called them", () => {
    const r = normaliseTurns([
      { start: 5, end: 6, speaker: 0 },
      { start: 1, end: 2, speaker: 7 },
      { start: 3, end: 4, speaker: 0 },
    ]);
    expect(r.turns.map((t) => t.speaker)).toEqual(["SPEAKER_00", "SPEAKER_01", "SPEAKER_01"]);
    expect(r.speakers).toEqual(["SPEAKER_00", "SPEAKER_01"]);
  });

  it("sorts turns by start time", () => {
    const r = normaliseTurns([
      { start: 3, end: 4, speaker: "b" },
      { start: 1, end: 2, speaker: "a" },
    ]);
    expect(r.turns.map((t) => t.start)).toEqual([1, 3]);
  });

  it("starts a turn that overlaps the previous one where the previous one ends, dropping it if nothing is left", () => {
    const r = normaliseTurns([
      { start: 0, end: 5, speaker: "a" },
      { start: 4, end: 7, speaker: "b" },
      { start: 4.5, end: 6, speaker: "c" },
    ]);
    expect(r.turns).toEqual([
      { start: 0, end: 5, speaker: "SPEAKER_00" },
      { start: 5, end: 7, speaker: "SPEAKER_01" },
    ]);
    expect(r.speakers).toEqual(["SPEAKER_00", "SPEAKER_01"]);
  });

  it("joins neighbouring turns of one speaker closer than the join gap", () => {
    const turns = [
      { start: 0, end: 1, speaker: "a" },
      { start: 1.2, end: 2, speaker: "a" },
    ];
    expect(normaliseTurns(turns, 0.25).turns).toEqual([{ start: 0, end: 2, speaker: "SPEAKER_00" }]);
    expect(normaliseTurns(turns, 0.1).turns).toHaveLength(2);
  });

  it("drops empty, reversed and non-finite turns", () => {
    expect(
      normaliseTurns([
        { start: 2, end: 2, speaker: "a" },
        { start: 3, end: 1, speaker: "a" },
        { start: NaN, end: 1, speaker: "a" },
      ]),
    ).toEqual({ turns: [], speakers: [] });
  });

  it("pads speaker numbers to two digits", () => {
    expect([speakerLabel(0), speakerLabel(9), speakerLabel(12)]).toEqual(["SPEAKER_00", "SPEAKER_09", "SPEAKER_12"]);
  });
});
