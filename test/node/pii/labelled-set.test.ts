import { describe, expect, it } from "vitest";
import { redactSegments } from "../../../contracts/pii/redact";
import type { PiiEntityType } from "../../../contracts/redaction";
import { piiSentences, writtenForm } from "../../support/pii-set";
import { segmentOf } from "../../support/pii-segments";

/** Recall on the labelled set's text form (bench/redaction.ts prints every figure; this holds the goal). */
function recallOf(type: PiiEntityType): number {
  let planted = 0;
  let found = 0;
  for (const s of piiSentences({ perType: 40, foreign: false })) {
    const { words, entities } = writtenForm(s);
    const redacted = redactSegments([segmentOf(words.join(" "))], { language: s.language }).entities;
    for (const e of entities.filter((x) => x.type === type)) {
      planted++;
      if (redacted.some((r) => r.type === type && r.wordStart < e.to && e.from < r.wordEnd)) found++;
    }
  }
  return found / planted;
}

describe("the labelled set, text form", () => {
  it.each(["EMAIL", "PHONE", "CARD_NUMBER"] as const)("finds at least 95 %% of the %s entities", (type) => {
    expect(recallOf(type)).toBeGreaterThanOrEqual(0.95);
  });

  it("redacts nothing in the sentences without personal data, near misses included", () => {
    const plain = piiSentences({ perType: 40, foreign: false }).filter((s) => writtenForm(s).entities.length === 0);
    expect(plain.length).toBeGreaterThan(20);
    const redacted = plain.flatMap((s) => redactSegments([segmentOf(writtenForm(s).words.join(" "))], { language: "en" }).entities);
    expect(redacted).toEqual([]);
  });
});
