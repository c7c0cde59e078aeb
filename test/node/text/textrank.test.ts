import { describe, expect, it } from "vitest";
import { rankOrder, textRank } from "../../../gpu-runner/engines/text/textrank";

/** Crude terms for a hand-made example: lower-case words of 3+ letters, a few function words left out. */
const FUNCTION_WORDS = new Set(["the", "and", "with", "are", "was", "for", "all", "our", "its", "into"]);
const terms = (sentence: string): string[] =>
  sentence
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((w) => w.length >= 3 && !FUNCTION_WORDS.has(w));

const PETS = [
  "The cat sleeps on the sofa all afternoon.",
  "Our dog chases the cat around the garden.",
  "The cat, the dog and the parrot share the garden and the sofa with the children.",
  "The parrot repeats what the children say.",
  "Stock markets closed lower on Monday.",
];
const CENTRAL = 2;
const UNRELATED = 4;

describe("textRank", () => {
  it("ranks first the sentence that shares vocabulary with all the others", () => {
    expect(rankOrder(textRank(PETS.map(terms)))[0]).toBe(CENTRAL);
  });

  it("ranks last a sentence that shares no term with the others", () => {
    const order = rankOrder(textRank(PETS.map(terms)));
    expect(order[order.length - 1]).toBe(UNRELATED);
  });

  it("gives a sentence without edges only the teleport share, (1 − 0.85) / N plus the spread of unlinked rank", () => {
    const scores = textRank(PETS.map(terms));
    expect(scores[UNRELATED]).toBeLessThan(1 / PETS.length);
  });

  it("returns one score per sentence, summing to 1", () => {
    const scores = textRank(PETS.map(terms));
    expect(scores).toHaveLength(PETS.length);
    expect(scores.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
  });

  it("scores identical sentences equally", () => {
    const scores = textRank([
      ["risotto", "rice"],
      ["risotto", "rice"],
      ["rice", "stock"],
    ]);
    expect(scores[0]).toBeCloseTo(scores[1] ?? 0, 10);
  });

  it("handles no sentences, one sentence and sentences without terms", () => {
    expect(textRank([])).toEqual([]);
    expect(textRank([["alone"]])).toEqual([1]);
    expect(textRank([[], []])).toEqual([0.5, 0.5]);
  });

  it("counts a term repeated inside one sentence once", () => {
    expect(textRank([["rice", "rice", "rice"], ["rice"], ["stock"]])).toEqual(textRank([["rice"], ["rice"], ["stock"]]));
  });
});

describe("rankOrder", () => {
  it("orders indexes from the highest score down, ties keeping the earlier index first", () => {
    expect(rankOrder([0.1, 0.5, 0.1, 0.3])).toEqual([1, 3, 0, 2]);
  });
});
