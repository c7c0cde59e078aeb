import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Segment, VisualChunk } from "../../../contracts/transcript";
import {
  DESCRIPTION_MAX,
  LONG_SYNOPSIS_MAX,
  MetadataDraftSchema,
  SEO_DESCRIPTION_MAX,
  SHORT_SYNOPSIS_MAX,
  SOCIAL_HOOK_MAX,
  SummaryDraftSchema,
  TITLE_MAX,
  type MetadataDraft,
  type SummaryDraft,
} from "../../../contracts/understanding";
import type { TextDocument } from "../../../gpu-runner/engines/text/interface";
import { LocalExtractiveTextEngine } from "../../../gpu-runner/engines/text/local-extractive";
import { StepFailure } from "../../../contracts/step-failure";
import { rejectionOf } from "../../support/rejection";
import {
  COOKING,
  FOOTBALL,
  JAPANESE_COOKING,
  SPANISH_COOKING,
  VIDEO_GAME,
  concatenated,
  docOf,
  longTranscript,
  normalised,
  segmentsOf,
  transcriptText,
  visualChunksOver,
} from "../../support/text-fixtures";

const engine = new LocalExtractiveTextEngine();
const signal = (): AbortSignal => AbortSignal.timeout(30_000);

async function drafts(doc: TextDocument, visualChunks: readonly VisualChunk[] = []): Promise<{ m: MetadataDraft; s: SummaryDraft }> {
  const m = await engine.metadata({ doc, signal: signal() });
  const s = await engine.summarize({ doc, visualChunks, signal: signal() });
  return { m, s };
}

/** The pieces of produced text that must each be transcript text: split after sentence ends and at omission marks. */
const fragments = (text: string): string[] =>
  text
    .split(/(?<=[.!?。！？])\s+|\s+…\s+/u)
    .map((f) => f.trim())
    .filter(Boolean);

/** Every sentence-sized piece of `text` occurs in the transcript (whitespace collapsed, any case). */
function expectMadeOfTranscript(text: string, segments: readonly Segment[]): void {
  const transcript = transcriptText(segments);
  for (const f of fragments(text)) expect(transcript, `"${f}" is not transcript text`).toContain(normalised(f));
}

function producedTexts(m: MetadataDraft, s: SummaryDraft): string[] {
  return [
    m.title,
    m.description,
    ...m.chapters.map((c) => c.title),
    s.shortSynopsis,
    s.longSynopsis,
    ...s.seoDescriptions,
    ...s.socialHooks,
  ];
}

const repeatWords = (words: readonly string[], n: number): string => Array.from({ length: n }, (_, i) => words[i % words.length]).join(" ");

/** Transcripts of every awkward shape, each with the segments it was made from. */
const SHAPES: { name: string; segments: Segment[]; language?: string }[] = [
  { name: "a cooking talk", segments: segmentsOf(COOKING) },
  { name: "a cooking talk then a football talk", segments: concatenated(COOKING, FOOTBALL) },
  { name: "one segment", segments: [{ id: 0, start: 0, end: 4, text: "Welcome to the kitchen." }] },
  { name: "one word", segments: [{ id: 0, start: 0, end: 1, text: "Hello" }] },
  {
    name: "empty-text segments among others",
    segments: [
      { id: 0, start: 0, end: 2, text: "" },
      ...segmentsOf(VIDEO_GAME, 1, 2).map((s) => ({ ...s, id: s.id + 1 })),
      { id: 99, start: 120, end: 121, text: "   " },
    ],
  },
  {
    name: "one very long segment without punctuation",
    segments: [
      { id: 0, start: 0, end: 1200, text: repeatWords(["stir", "the", "creamy", "risotto", "slowly", "with", "warm", "stock"], 3000) },
    ],
  },
  {
    name: "segments without punctuation, lower case",
    segments: segmentsOf(COOKING.map((s) => s.toLowerCase().replace(/[.,!?]/g, ""))),
  },
  { name: "a Spanish talk", segments: segmentsOf(SPANISH_COOKING), language: "es" },
  { name: "a Japanese talk", segments: segmentsOf(JAPANESE_COOKING), language: "ja" },
  { name: "an unknown language tag", segments: segmentsOf(SPANISH_COOKING), language: "not a tag!" },
  { name: "an hour of talk (~9000 words)", segments: longTranscript(9000) },
];

describe("local-extractive text engine", () => {
  it("says it is extractive and names its methods and library versions", () => {
    expect(engine.generatedBy).toMatchObject({ engine: "local-extractive", kind: "extractive" });
    for (const pkg of ["wink-nlp", "wink-eng-lite-web-model", "compromise", "retext-keywords", "retext-pos", "stopword"]) {
      const { version } = JSON.parse(readFileSync(new URL(`../../../node_modules/${pkg}/package.json`, import.meta.url), "utf8")) as {
        version: string;
      };
      expect(engine.generatedBy.model).toContain(`${pkg}-${version}`);
    }
  });

  describe.each(SHAPES)("given $name", ({ segments, language }) => {
    const doc = docOf(segments, language ?? "en");
    const run = () => drafts(doc, visualChunksOver(doc.durationSec, 30));

    it("produces drafts that validate against the contracts", async () => {
      const { m, s } = await run();
      expect(MetadataDraftSchema.parse(m)).toEqual(m);
      expect(SummaryDraftSchema.parse(s)).toEqual(s);
    });

    it("writes nothing that is not the transcript's own text", async () => {
      const { m, s } = await run();
      for (const text of producedTexts(m, s)) expectMadeOfTranscript(text, segments);
    });

    it("uses only keywords that occur in the transcript", async () => {
      const { m, s } = await run();
      const transcript = transcriptText(segments);
      for (const k of [...m.keywords, ...s.keywords]) expect(transcript).toContain(normalised(k));
    });

    it("starts chapters on segment starts, the first at 0, in order, within the duration", async () => {
      const { m } = await run();
      expect(m.chapters[0]).toMatchObject({ start: 0, segmentId: [...segments].sort((a, b) => a.start - b.start)[0]?.id });
      for (const c of m.chapters.slice(1)) {
        expect(segments.find((sg) => sg.id === c.segmentId)?.start).toBe(c.start);
        expect(c.start).toBeLessThan(doc.durationSec);
      }
      const starts = m.chapters.map((c) => c.start);
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
    });
  });

  describe("limits", () => {
    it("cuts long text at word boundaries, never inside a word", async () => {
      const text = repeatWords(["stir", "the", "creamy", "risotto", "slowly", "with", "warm", "stock"], 3000);
      const { m, s } = await drafts(docOf([{ id: 0, start: 0, end: 1200, text }]));
      const cuts: [string, number][] = [
        [m.title, TITLE_MAX],
        [m.description, DESCRIPTION_MAX],
        [s.shortSynopsis, SHORT_SYNOPSIS_MAX],
        [s.longSynopsis, LONG_SYNOPSIS_MAX],
        ...s.seoDescriptions.map((d): [string, number] => [d, SEO_DESCRIPTION_MAX]),
        ...s.socialHooks.map((h): [string, number] => [h, SOCIAL_HOOK_MAX]),
      ];
      for (const [cut, max] of cuts) {
        expect(cut.length).toBeLessThanOrEqual(max);
        const at = text.toLowerCase().indexOf(cut.toLowerCase());
        expect(at).toBeGreaterThanOrEqual(0);
        expect(text.charAt(at + cut.length)).toMatch(/^(\s|)$/);
      }
    });

    it("ends titles and hooks without a dangling comma, dash or bracket", async () => {
      const { m, s } = await drafts(docOf(longTranscript(3000)));
      for (const h of [m.title, ...m.chapters.map((c) => c.title), ...s.socialHooks]) expect(h).not.toMatch(/[,;:\-–—(]$/);
    });
  });

  describe("chapters", () => {
    it("open a second chapter within one segment of where a football talk follows a cooking talk", async () => {
      const { m } = await drafts(docOf(concatenated(COOKING, FOOTBALL)));
      expect(m.chapters).toHaveLength(2);
      expect(Math.abs((m.chapters[1]?.segmentId ?? 0) - COOKING.length)).toBeLessThanOrEqual(1);
    });

    it("are one for a transcript under 3 minutes", async () => {
      const { m } = await drafts(docOf(segmentsOf(COOKING)));
      expect(m.chapters).toHaveLength(1);
    });

    it("last at least 60 s each, at most 15, in an hour", async () => {
      const doc = docOf(longTranscript(9000));
      const { m } = await drafts(doc);
      const ends = [...m.chapters.slice(1).map((c) => c.start), doc.durationSec];
      m.chapters.forEach((c, i) => expect((ends[i] ?? 0) - c.start).toBeGreaterThanOrEqual(60));
      expect(m.chapters.length).toBeGreaterThan(1);
      expect(m.chapters.length).toBeLessThanOrEqual(15);
    });

    it("have distinct titles taken from their own sentences", async () => {
      const segments = concatenated(COOKING, FOOTBALL);
      const { m } = await drafts(docOf(segments));
      const [cooking, football] = m.chapters;
      expect(normalised(COOKING.join(" "))).toContain(normalised(cooking?.title ?? "-"));
      expect(normalised(FOOTBALL.join(" "))).toContain(normalised(football?.title ?? "-"));
    });
  });

  describe("summary", () => {
    it("has 3 distinct SEO descriptions and 3 distinct hooks when the transcript has enough sentences", async () => {
      const { s } = await drafts(docOf(segmentsOf(COOKING)));
      expect(new Set(s.seoDescriptions).size).toBe(3);
      expect(new Set(s.socialHooks).size).toBe(3);
    });

    it("leads the hooks with a question", async () => {
      const { s } = await drafts(docOf(segmentsOf(COOKING)));
      expect(s.socialHooks[0]).toBe("Did you know that stirring releases the starch that makes a risotto creamy?");
    });

    it("covers every chapter in the long synopsis", async () => {
      const { s } = await drafts(docOf(concatenated(COOKING, FOOTBALL)));
      const pieces = fragments(s.longSynopsis);
      expect(pieces.some((p) => COOKING.includes(p))).toBe(true);
      expect(pieces.some((p) => FOOTBALL.includes(p))).toBe(true);
    });

    it("opens the long synopsis of a conversation by naming who talks, and still fits the limit", async () => {
      const segments = segmentsOf(COOKING).map((seg, i) => ({ ...seg, speaker: i % 2 === 0 ? "SPEAKER_00" : "SPEAKER_01" }));
      const speakers = [
        { label: "SPEAKER_00", name: "Ada Lovelace", speakingSec: 50, segmentCount: 4 },
        { label: "SPEAKER_01", name: "Bo", speakingSec: 40, segmentCount: 4 },
      ];
      const { s } = await drafts({ ...docOf(segments), speakers });
      expect(s.longSynopsis.startsWith("A conversation between Ada Lovelace and Bo. ")).toBe(true);
      expect(s.longSynopsis.length).toBeLessThanOrEqual(LONG_SYNOPSIS_MAX);
    });

    it("has exactly 5 distinct keywords when the transcript has 5 distinct words", async () => {
      const { s } = await drafts(docOf(segmentsOf(COOKING)));
      expect(new Set(s.keywords.map((k) => k.toLowerCase())).size).toBe(5);
    });

    it("repeats the transcript's few words rather than invent keywords", async () => {
      const { s } = await drafts(docOf([{ id: 0, start: 0, end: 1, text: "Hello world." }]));
      expect(s.keywords).toHaveLength(5);
      expect(new Set(s.keywords.map((k) => k.toLowerCase()))).toEqual(new Set(["hello", "world"]));
    });

    it("lists the visual chunks that overlap the synopsis sentences, by their index", async () => {
      const segments = segmentsOf(COOKING);
      const speechEnd = segments[segments.length - 1]?.end ?? 0;
      const chunks: VisualChunk[] = [
        { index: 7, start: 0, end: 10, summary: "", descriptors: {} },
        { index: 8, start: speechEnd + 5, end: speechEnd + 20, summary: "", descriptors: {} },
      ];
      const { s } = await drafts(docOf(segments, "en", speechEnd + 20), chunks);
      expect(s.visualChunksUsed).toEqual([7]);
    });

    it("never uses a visual chunk's summary text", async () => {
      const segments = segmentsOf(COOKING);
      const chunks = visualChunksOver(100, 10).map((c) => ({ ...c, summary: "A purple elephant juggles umbrellas" }));
      const { m, s } = await drafts(docOf(segments), chunks);
      for (const text of [...producedTexts(m, s), ...s.keywords]) expect(text.toLowerCase()).not.toContain("elephant");
    });
  });

  describe("IAB categories", () => {
    it("classify a cooking talk under Food & Drink in both drafts", async () => {
      const { m, s } = await drafts(docOf(segmentsOf(COOKING)));
      expect(m.categories[0]?.tierPath[0]).toBe("Food & Drink");
      expect(s.classification).toEqual(m.categories);
    });

    it("are left empty for a language the classifier's English lists cannot read", async () => {
      const { m, s } = await drafts(docOf(segmentsOf(SPANISH_COOKING), "es"));
      expect(m.categories).toEqual([]);
      expect(s.classification).toEqual([]);
    });
  });

  describe("failures", () => {
    it("fail the step, not retryable, for a transcript without a word", async () => {
      const doc = docOf([
        { id: 0, start: 0, end: 1, text: "" },
        { id: 1, start: 1, end: 2, text: " ... !" },
      ]);
      const err = await rejectionOf(engine.metadata({ doc, signal: signal() }), StepFailure);
      expect(err).toMatchObject({ code: "processing_failed", retryable: false });
    });

    it("reject with the signal's reason when the task is already cancelled", async () => {
      const ac = new AbortController();
      const reason = new Error("cancel requested");
      ac.abort(reason);
      const doc = docOf(segmentsOf(COOKING));
      await expect(engine.metadata({ doc, signal: ac.signal })).rejects.toBe(reason);
      await expect(engine.summarize({ doc, visualChunks: [], signal: ac.signal })).rejects.toBe(reason);
    });
  });
});
