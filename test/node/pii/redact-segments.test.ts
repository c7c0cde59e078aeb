import { describe, expect, it } from "vitest";
import { redactSegments } from "../../../contracts/pii/redact";
import { RedactedEntitySchema } from "../../../contracts/redaction";
import { segmentOf } from "../../support/pii-segments";

const CARD = "4111 1111 1111 1111";
const EMAIL = "john.smith@example.com";

describe("redactSegments", () => {
  it("replaces an entity's words by one placeholder word in the words and the text", () => {
    const { segments } = redactSegments([segmentOf(`Charge ${CARD} today.`)], { language: "en" });
    expect(segments[0]!.words!.map((w) => w.word)).toEqual(["Charge", "[CARD_NUMBER]", "today."]);
    expect(segments[0]!.text).toBe("Charge [CARD_NUMBER] today.");
  });

  it("indexes the entity's words as they were before redaction, end exclusive", () => {
    const { entities } = redactSegments([segmentOf(`Charge ${CARD} or mail ${EMAIL} today.`)], { language: "en" });
    expect(entities.map((e) => [e.type, e.wordStart, e.wordEnd])).toEqual([
      ["CARD_NUMBER", 1, 5],
      ["EMAIL", 7, 8],
    ]);
  });

  it("gives the placeholder the first word's start and the last word's end, so timings stay in order", () => {
    const segment = segmentOf(`Charge ${CARD} today.`, { start: 10, wordSec: 0.5 });
    const { segments, entities } = redactSegments([segment], { language: "en" });
    const placeholder = segments[0]!.words![1]!;
    expect([placeholder.start, placeholder.end]).toEqual([segment.words![1]!.start, segment.words![4]!.end]);
    expect([entities[0]!.start, entities[0]!.end]).toEqual([placeholder.start, placeholder.end]);
    const starts = segments[0]!.words!.map((w) => w.start);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it("keeps the text's own punctuation around a redacted word", () => {
    const segment = { ...segmentOf(`mail ${EMAIL} now`), text: `Mail ${EMAIL}, now!` };
    expect(redactSegments([segment], { language: "en" }).segments[0]!.text).toBe("Mail [EMAIL], now!");
  });

  it("keeps a bracket or plus sign that belongs to the value inside the placeholder", () => {
    const segment = segmentOf("Call (415) 386-2671, or +44 20 7946 0958.");
    expect(redactSegments([segment], { language: "en" }).segments[0]!.text).toBe("Call [PHONE], or [PHONE].");
  });

  it("redacts a segment without words, sharing its span out between the words of its text", () => {
    const segment = { id: 3, start: 10, end: 13, text: `Mail ${EMAIL} now` };
    const { segments, entities } = redactSegments([segment], { language: "en" });
    expect(segments[0]).toEqual({ ...segment, text: "Mail [EMAIL] now" });
    expect(entities).toEqual([{ type: "EMAIL", segmentId: 3, start: 11, end: 12, wordStart: 1, wordEnd: 2 }]);
  });

  it("looks only for the entity types asked for", () => {
    const segments = [segmentOf(`Charge ${CARD} or mail ${EMAIL} today.`)];
    expect(redactSegments(segments, { language: "en", entities: ["EMAIL"] }).entities.map((e) => e.type)).toEqual(["EMAIL"]);
  });

  it("never puts an entity's value in the entity list", () => {
    const { entities } = redactSegments([segmentOf(`My name is John Smith, mail ${EMAIL} or charge ${CARD}.`)], { language: "en" });
    expect(entities.length).toBe(3);
    for (const e of entities) expect(RedactedEntitySchema.strict().parse(e)).toEqual(e);
    const serialised = JSON.stringify(entities);
    for (const value of ["John", "Smith", "john.smith", "4111", "example"]) expect(serialised).not.toContain(value);
  });

  it("returns a segment with no entity as it was", () => {
    const segment = segmentOf("The weather was lovely today.");
    expect(redactSegments([segment], { language: "en" }).segments[0]).toBe(segment);
  });

  it("keeps an entity within its segment: a number split across two segments is not joined", () => {
    const { entities } = redactSegments(
      [segmentOf("my card is 4111 1111", { id: 0 }), segmentOf("1111 1111 thanks", { id: 1, start: 5 })],
      {
        language: "en",
      },
    );
    expect(entities.filter((e) => e.type === "CARD_NUMBER")).toEqual([]);
  });

  it("names what found the entities", () => {
    const r = redactSegments([], { language: "en" });
    expect(r.engine).toBe("local-pii");
    expect(r.model).toMatch(/^rules-v1\+.*compromise-14\.17/);
  });
});
