import { describe, expect, it } from "vitest";
import type { Segment } from "../../../contracts/transcript";
import { UnreadableAnswer } from "../../../gpu-runner/engines/chat/unreadable-answer";
import { readMetadataAnswer, readSummaryAnswer, type ReadContext } from "../../../gpu-runner/engines/text/answer";
import { loadIabIds } from "../../../gpu-runner/engines/text/iab-ids";
import type { TextDocument } from "../../../gpu-runner/engines/text/interface";
import {
  cutAtWord,
  metadataMessages,
  shownMaterial,
  summaryMessages,
  TRANSCRIPT_BUDGET_CHARS,
  TRANSCRIPT_PASSAGES,
} from "../../../gpu-runner/engines/text/prompt";
import { metadataAnswer, summaryAnswer, TOMATO_SCENES, TOMATO_TALK } from "../../support/text-backends";

/** What the hosted text engines ask (prompt.ts) and how they read the answer (answer.ts), whatever the backend. */
const iab = loadIabIds();
const userMessage = (doc: TextDocument) => metadataMessages(doc, shownMaterial(doc), iab.tier1)[1]!.content;
const context = (final = false, doc: TextDocument = TOMATO_TALK): ReadContext => ({
  shown: shownMaterial(doc, TOMATO_SCENES),
  iab: iab.category,
  final,
});

function talk(segments: Partial<Segment>[]): TextDocument {
  return {
    ...TOMATO_TALK,
    segments: segments.map((s, id) => ({ id, start: id * 10, end: id * 10 + 10, text: "words", ...s })),
  };
}

describe("the prompt", () => {
  it("shows the video's length and language, then the transcript as [segmentId @ start s] text lines", () => {
    expect(userMessage(talk([{ text: "Hello  there.\nWelcome." }, { start: 12.34, text: "Bye." }]))).toBe(
      ["Video: 95.0 s long, language en.", "", "Transcript (2 segments):", "[0 @ 0.0 s] Hello there. Welcome.", "[1 @ 12.3 s] Bye."].join(
        "\n",
      ),
    );
  });

  it("names the speaker of each line of a diarized transcript, and lists the speakers with their share of the speech", () => {
    const doc: TextDocument = {
      ...talk([
        { text: "Welcome.", speaker: "SPEAKER_00" },
        { text: "Thanks.", speaker: "SPEAKER_01" },
      ]),
      speakers: [
        { label: "SPEAKER_00", name: "Ada Lovelace", speakingSec: 30, segmentCount: 1 },
        { label: "SPEAKER_01", name: null, speakingSec: 10, segmentCount: 1 },
      ],
    };
    const lines = userMessage(doc).split("\n");
    expect(lines[0]).toBe("Video: 95.0 s long, language en. Speakers: Ada Lovelace (75 % of the speech), SPEAKER_01 (25 % of the speech).");
    expect(lines.slice(-2)).toEqual(["[0 @ 0.0 s] Ada Lovelace: Welcome.", "[1 @ 10.0 s] SPEAKER_01: Thanks."]);
  });

  it("shows a summary the scenes as #index start–end: summary lines after the transcript", () => {
    const user = summaryMessages(TOMATO_TALK, shownMaterial(TOMATO_TALK, TOMATO_SCENES), iab.tier1)[1]!.content;
    expect(
      user.endsWith(
        "\n\nScenes (2):\n#0 0.0–40.0: A woman on a balcony beside potted plants.\n#1 40.0–95.0: Close-ups of hands pinching tomato shoots.",
      ),
    ).toBe(true);
  });

  it("shows a transcript too long for the budget as passages spread over the whole video, in whole lines", () => {
    const doc = talk(Array.from({ length: 400 }, (_, i) => ({ text: `segment number ${i} says something long enough to count` })));
    const shown = shownMaterial(doc);
    expect(shown.segmentLines.join("\n").length).toBeLessThanOrEqual(TRANSCRIPT_BUDGET_CHARS);
    expect(shown.passageStarts).toHaveLength(TRANSCRIPT_PASSAGES - 1);
    // Each passage opens where its eighth of the transcript opens, the last in the final eighth.
    const firstIds = [0, ...shown.passageStarts].map((i) => shown.segments[i]!.id);
    expect(firstIds).toEqual(Array.from({ length: TRANSCRIPT_PASSAGES }, (_, p) => p * 50));
    for (const l of shown.segmentLines) expect(l).toMatch(/^\[\d+ @ [\d.]+ s\] segment number \d+ says something long enough to count$/);
    const user = userMessage(doc);
    expect(user).toContain(`Transcript (${shown.segments.length} of 400 segments, in 8 passages spread over the whole video;`);
    expect(user).toContain("…\n[50 @ 500.0 s]");
  });

  it("shows every segment when all fit, in one passage", () => {
    const shown = shownMaterial(talk(Array.from({ length: 20 }, (_, i) => ({ text: `line ${i}` }))));
    expect(shown.segments).toHaveLength(20);
    expect(shown.passageStarts).toEqual([]);
  });

  it("cuts a first segment longer than the whole budget at a word", () => {
    const shown = shownMaterial(talk([{ text: "lorem ipsum ".repeat(1_000) }, { text: "second" }]));
    expect(shown.segments.map((s) => s.id)).toEqual([0]);
    expect(shown.segmentLines[0]!.length).toBeLessThanOrEqual(TRANSCRIPT_BUDGET_CHARS);
    expect(shown.segmentLines[0]).toMatch(/ (lorem|ipsum)…$/);
  });

  it("leaves out segments without text, so no chapter can open on one", () => {
    const shown = shownMaterial(talk([{ text: " " }, { text: "Hello." }]));
    expect(shown.segmentLines).toEqual(["[1 @ 10.0 s] Hello."]);
  });

  it("states the contract's limits, the language and JSON only in the instructions", () => {
    const [system] = metadataMessages(TOMATO_TALK, shownMaterial(TOMATO_TALK), iab.tier1);
    expect(system!.content).toContain("Answer with a JSON object only, no other text, of exactly this shape:");
    expect(system!.content).toContain(
      '{"title": <string, at most 70 characters>, "description": <string, at most 300 characters>, "keywords": [<up to 15 distinct strings>]',
    );
    expect(system!.content).toContain("- Write in the language of the transcript (en).");
    expect(system!.content).toContain("the first chapter opens with segment 0.");
    const [summarySystem] = summaryMessages(TOMATO_TALK, shownMaterial(TOMATO_TALK), iab.tier1);
    expect(summarySystem!.content).toContain(
      '"seoDescriptions": [<exactly 3 strings, each at most 160 characters>], "socialHooks": [<exactly 3 strings, each at most 100 characters>], "keywords": [<exactly 5 distinct strings>]',
    );
  });

  it("offers every IAB tier-1 category by id and name", () => {
    const [system] = metadataMessages(TOMATO_TALK, shownMaterial(TOMATO_TALK), iab.tier1);
    expect(system!.content).toContain("IAB tier-1 categories (id: name): 150: Attractions; 1: Automotive; 42: Books and Literature;");
    expect(system!.content).toContain("; 680: Video Gaming; 389: War and Conflicts.");
  });

  it.each([
    ["A short title", 70, "A short title"],
    ["How to grow a great many cherry tomatoes", 20, "How to grow a great…"],
    ["Supercalifragilisticexpialidocious words", 12, "Supercalifr…"],
    ["Ends with a comma, then more", 20, "Ends with a comma…"],
  ])("cuts %j to %i characters at a word, marked with …", (text, max, cut) => {
    expect(cutAtWord(text, max)).toBe(cut);
    expect(cutAtWord(text, max).length).toBeLessThanOrEqual(max);
  });
});

describe("reading a metadata answer", () => {
  it("orders chapters by their segment's start, drops repeats, and opens the first on the first segment at 0", () => {
    const r = readMetadataAnswer(
      metadataAnswer({
        chapters: [
          { segmentId: 4, title: "Pinching" },
          { segmentId: "2", title: "Watering" },
          { segmentId: 2, title: "Watering again" },
        ],
      }),
      context(),
    );
    expect(r).toEqual({
      ok: true,
      draft: expect.objectContaining({
        chapters: [
          { segmentId: 0, start: 0, title: "Watering" },
          { segmentId: 4, start: 61.2, title: "Pinching" },
        ],
      }),
      notes: [
        "1 chapter(s) repeating a segment or start dropped",
        "the first chapter opened with segment 2; moved to the opening segment 0",
      ],
    });
  });

  it("keeps the highest confidence of a repeated IAB id and orders categories by confidence", () => {
    const r = readMetadataAnswer(
      metadataAnswer({
        categories: [
          { id: 483, confidence: 0.3 },
          { id: "210", confidence: 0.6 },
          { id: "483", confidence: 0.9 },
        ],
      }),
      context(),
    );
    expect(r.ok && r.draft.categories).toEqual([
      { id: "483", name: "Sports", tierPath: ["Sports"], confidence: 0.9 },
      { id: "210", name: "Food & Drink", tierPath: ["Food & Drink"], confidence: 0.6 },
    ]);
  });

  it("deduplicates keywords ignoring case and trims every string", () => {
    const r = readMetadataAnswer(metadataAnswer({ title: "  Tomatoes ", keywords: ["Tomatoes", "tomatoes ", "pots"] }), context());
    expect(r.ok && [r.draft.title, r.draft.keywords]).toEqual(["Tomatoes", ["Tomatoes", "pots"]]);
  });

  it("lists every problem of a malformed answer, each at its JSON path", () => {
    const r = readMetadataAnswer(
      { title: "", keywords: "tomatoes", categories: [{ id: "483", confidence: 87 }], chapters: [{ segmentId: 0, title: "Start" }] },
      context(),
    );
    expect(r).toEqual({
      ok: false,
      issues: [
        "title: must not be empty",
        "description: Invalid input: expected string, received undefined",
        "keywords: Invalid input: expected array, received string",
        "categories[0].confidence: Too big: expected number to be <=1",
      ],
    });
  });

  it("asks about a string over its limit before the retry, and cuts it after", () => {
    const long = "word ".repeat(80).trim();
    expect(readMetadataAnswer(metadataAnswer({ description: long }), context(false))).toEqual({
      ok: false,
      issues: ["description: 399 characters, at most 300 allowed"],
    });
    const r = readMetadataAnswer(metadataAnswer({ description: long }), context(true));
    expect(r.ok && r.draft.description).toBe(`${"word ".repeat(59)}word…`);
    expect(r.ok && r.notes).toEqual(["description: cut from 399 to 300 characters"]);
  });

  it("reads text with a JSON object in it, and says when there is none", () => {
    expect(readMetadataAnswer(`Here:\n${JSON.stringify(metadataAnswer())}`, context()).ok).toBe(true);
    expect(readMetadataAnswer("No JSON, sorry.", context())).toEqual({
      ok: false,
      issues: ["the answer is not a JSON object: No JSON, sorry."],
    });
    expect(readMetadataAnswer(new UnreadableAnswer("an empty response"), context())).toEqual({
      ok: false,
      issues: ["the answer is not a JSON object (an empty response)"],
    });
  });
});

describe("reading a summary answer", () => {
  it("needs five distinct keywords", () => {
    const r = readSummaryAnswer(summaryAnswer({ keywords: ["a", "A", "b", "c", "d"] }), context());
    expect(r).toEqual({ ok: false, issues: ["keywords: 4 distinct keywords, exactly 5 wanted"] });
  });

  it("needs exactly three SEO descriptions and three social hooks", () => {
    const r = readSummaryAnswer(summaryAnswer({ seoDescriptions: ["one"], socialHooks: ["a", "b", "c", "d"] }), context());
    expect(r).toEqual({
      ok: false,
      issues: [
        "seoDescriptions: Too small: expected array to have exactly 3 items",
        "socialHooks: Too big: expected array to have exactly 3 items",
      ],
    });
  });

  it("sorts and deduplicates the scenes used", () => {
    const r = readSummaryAnswer(summaryAnswer({ visualChunksUsed: [1, 0, 1] }), context());
    expect(r.ok && r.draft.visualChunksUsed).toEqual([0, 1]);
  });

  it("refuses scenes when none was shown", () => {
    const r = readSummaryAnswer(summaryAnswer({ visualChunksUsed: [0] }), { ...context(), shown: shownMaterial(TOMATO_TALK) });
    expect(r).toEqual({ ok: false, issues: ["visualChunksUsed[0]: 0 is not the index of a scene shown (none was shown)"] });
  });
});
