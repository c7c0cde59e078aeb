import { describe, expect, it } from "vitest";
import { attribution, diarizationError, type ScoredTurn } from "../support/diarization-score";

/** Diarization scoring (test/support/diarization-score.ts) on hand-made turns whose right answer is known. */
const t = (speaker: string, start: number, end: number): ScoredTurn => ({ speaker, start, end });
const noCollar = { collarSec: 0 };

/** Ten seconds each of two people taking turns. */
const truth = [t("ada", 0, 10), t("bob", 10, 20)];

describe("diarization error rate", () => {
  it("is zero for a perfect answer, whatever the labels are called", () => {
    const r = diarizationError(truth, [t("SPEAKER_01", 0, 10), t("SPEAKER_00", 10, 20)], noCollar);
    expect(r).toMatchObject({ referenceSec: 20, missedSec: 0, falseAlarmSec: 0, confusionSec: 0, rate: 0 });
    expect(r.mapping).toEqual(
      new Map([
        ["SPEAKER_01", "ada"],
        ["SPEAKER_00", "bob"],
      ]),
    );
  });

  it("counts everything given to one speaker as confusion for the other speaker's time", () => {
    const r = diarizationError(truth, [t("S", 0, 20)], noCollar);
    expect(r).toMatchObject({ confusionSec: 10, missedSec: 0, falseAlarmSec: 0, rate: 0.5 });
  });

  it("counts speech given to nobody as missed", () => {
    expect(diarizationError(truth, [t("A", 0, 10), t("B", 14, 20)], noCollar)).toMatchObject({ missedSec: 4, rate: 0.2 });
  });

  it("counts a speaker where nobody speaks as false alarm", () => {
    expect(diarizationError(truth, [t("A", 0, 10), t("B", 10, 25)], noCollar)).toMatchObject({ falseAlarmSec: 5, rate: 0.25 });
  });

  it("counts both people of overlapped speech, missing the one a single label cannot cover", () => {
    const r = diarizationError([t("ada", 0, 10), t("bob", 8, 20)], [t("A", 0, 10), t("B", 10, 20)], noCollar);
    expect(r.referenceSec).toBe(22);
    expect(r.missedSec).toBe(2);
    expect(r.rate).toBeCloseTo(2 / 22);
  });

  it("maps labels one to one, the best mapping overall rather than the greediest pair first", () => {
    // X shares 5 s with ada and 4 s with bob, Y shares 4 s with ada only: greedy X→ada leaves 5 s
    // matched, X→bob and Y→ada match 8 s.
    const reference = [t("ada", 0, 9), t("bob", 9, 13)];
    const r = diarizationError(reference, [t("Y", 0, 4), t("X", 4, 13)], noCollar);
    expect(r.mapping).toEqual(
      new Map([
        ["Y", "ada"],
        ["X", "bob"],
      ]),
    );
    expect(r.confusionSec).toBe(5);
  });

  it("leaves a label beyond the number of people unmapped, its time confusion", () => {
    const r = diarizationError(truth, [t("A", 0, 10), t("B", 10, 17), t("C", 17, 20)], noCollar);
    expect(r.mapping.has("C")).toBe(false);
    expect(r.confusionSec).toBe(3);
  });

  it("does not score within the collar either side of a reference boundary", () => {
    // The change of speaker found 0.2 s late: inside a 0.25 s collar, outside none.
    const late = [t("A", 0, 10.2), t("B", 10.2, 20)];
    expect(diarizationError(truth, late, noCollar).confusionSec).toBeCloseTo(0.2);
    const collared = diarizationError(truth, late, { collarSec: 0.25 });
    expect(collared.rate).toBe(0);
    // 0.25 s after the start, 0.5 s around the change, 0.25 s before the end are not scored.
    expect(collared.referenceSec).toBeCloseTo(19);
  });

  it("is zero with no reference speech and no answer", () => {
    expect(diarizationError([], [], noCollar)).toMatchObject({ referenceSec: 0, rate: 0 });
  });
});

describe("attributed time", () => {
  it("is the share of the answer's speaker time given to the right person", () => {
    expect(attribution(truth, [t("A", 0, 12), t("B", 12, 20)])).toEqual({ accuracy: 0.9, coverage: 1 });
  });

  it("counts overlapped speech right when given to either of the people speaking", () => {
    const overlapped = [t("ada", 0, 10), t("bob", 8, 20)];
    expect(attribution(overlapped, [t("A", 0, 9), t("B", 9, 20)]).accuracy).toBe(1);
  });

  it("reports how much of the speech the answer gives to anyone", () => {
    expect(attribution(truth, [t("A", 0, 10), t("B", 15, 20)]).coverage).toBe(0.75);
  });
});
