import { describe, expect, it } from "vitest";
import { findMoments, SCORE_WEIGHTS } from "../../../gpu-runner/services/clip-generation/moments";
import { buildSentences, type Timeline, type TimedWord } from "../../../gpu-runner/services/clip-generation/timeline";

/** Words at a steady 2.5 words/s, with a 0.8 s pause after every `perSentence` words. */
function speech(count: number, perSentence = 10, vocabulary = ["market", "growth", "river", "secret", "camera", "family"]): TimedWord[] {
  const words: TimedWord[] = [];
  let t = 0.5;
  for (let i = 0; i < count; i++) {
    words.push({ word: i % 3 === 0 ? vocabulary[i % vocabulary.length]! : `w${i}`, start: t, end: t + 0.3 });
    t += 0.4;
    if ((i + 1) % perSentence === 0) t += 0.8;
  }
  return words;
}

function timeline(words: TimedWord[], extra: Partial<Timeline> = {}): Timeline {
  const end = words[words.length - 1]!.end + 1;
  return {
    durationSec: end,
    words,
    sentences: buildSentences(words, 0.45),
    cuts: [],
    energy: { step: 0.5, db: Array.from({ length: Math.ceil(end / 0.5) }, (_, i) => -30 + 10 * Math.sin(i / 7)) },
    speakerChanges: [],
    ...extra,
  };
}

const opts = { minSec: 15, maxSec: 60, maxClips: 5 };

describe("moments", () => {
  it("start and end on whole words: no word of the source is cut by a clip's bounds", () => {
    const words = speech(400);
    const { moments } = findMoments(timeline(words), opts);
    expect(moments.length).toBeGreaterThan(0);
    for (const m of moments)
      for (const w of words) expect(w.end <= m.start || w.start >= m.end || (w.start >= m.start && w.end <= m.end)).toBe(true);
  });

  it("never overlap one another", () => {
    const { moments } = findMoments(timeline(speech(400)), opts);
    const sorted = [...moments].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.start).toBeGreaterThanOrEqual(sorted[i - 1]!.end);
  });

  it("last between the configured bounds (padding into silence included)", () => {
    for (const m of findMoments(timeline(speech(400)), opts).moments) {
      expect(m.end - m.start).toBeGreaterThanOrEqual(15);
      expect(m.end - m.start).toBeLessThanOrEqual(60 + 0.75);
    }
  });

  it("are at most maxClips, best first", () => {
    const { moments } = findMoments(timeline(speech(400)), { ...opts, maxClips: 2 });
    expect(moments).toHaveLength(2);
    expect(moments[0]!.score).toBeGreaterThanOrEqual(moments[1]!.score);
  });

  it("score as the documented weighted sum of their parts", () => {
    for (const m of findMoments(timeline(speech(200)), opts).moments) {
      const sum = Object.entries(SCORE_WEIGHTS).reduce((n, [k, w]) => n + w * m.scoreParts[k as keyof typeof SCORE_WEIGHTS], 0);
      expect(m.score).toBeCloseTo(sum, 2);
    }
  });

  it("rank a window with scene cuts and speaker changes above the same speech without them", () => {
    const words = speech(120);
    const plain = findMoments(timeline(words), { ...opts, maxClips: 1 }).moments[0]!;
    const lively = findMoments(
      timeline(words, { cuts: [plain.start + 2, plain.start + 6], speakerChanges: [plain.start + 3, plain.start + 9] }),
      {
        ...opts,
        maxClips: 1,
      },
    ).moments[0]!;
    expect(lively.scoreParts.scenes).toBeGreaterThan(0);
    expect(lively.scoreParts.speakers).toBeGreaterThan(0);
    expect(lively.score).toBeGreaterThan(plain.score);
  });

  it("give a source shorter than the minimum one clip of all its speech", () => {
    const words = speech(20);
    const { moments } = findMoments(timeline(words), opts);
    expect(moments).toHaveLength(1);
    expect(moments[0]!.start).toBeLessThanOrEqual(words[0]!.start);
    expect(moments[0]!.end).toBeGreaterThanOrEqual(words[words.length - 1]!.end);
  });

  it("carry a title made of the clip's own words", () => {
    const m = findMoments(timeline(speech(200)), opts).moments[0]!;
    expect(m.title.length).toBeGreaterThan(0);
    expect(m.text.toLowerCase()).toContain(
      m.title
        .split(" ")[0]!
        .toLowerCase()
        .replace(/[^a-z0-9]/g, ""),
    );
  });

  it("keep the letters of every script in their titles", () => {
    const es = findMoments(timeline(speech(200, 10, ["canción", "niño", "corazón", "año", "jalapeño", "montaña"])), opts).moments[0]!;
    expect(es.title).toMatch(/canción|niño|corazón|año|jalapeño|montaña/iu);
    const jaWords = speech(200, 10, ["東京", "会議", "計画", "新しい", "未来", "写真"]).map((w) => ({
      ...w,
      word: w.word.replace(/^w\d+$/, "です"),
    }));
    const ja = findMoments(timeline(jaWords), opts).moments[0]!;
    expect(ja.title).toMatch(/東京|会議|計画|新しい|未来|写真/u);
    expect(ja.text).not.toContain(" ");
  });
});

describe("sentences", () => {
  it("end at punctuation for engines that punctuate", () => {
    const words = [
      { word: "Hello", start: 0, end: 0.3 },
      { word: "there.", start: 0.35, end: 0.6 },
      { word: "Next", start: 0.65, end: 0.9 },
    ];
    expect(buildSentences(words, 0.45).map((s) => s.text)).toEqual(["Hello there.", "Next"]);
  });

  it("end at pauses for engines that do not (PocketSphinx)", () => {
    const words = [
      { word: "one", start: 0, end: 0.3 },
      { word: "two", start: 0.35, end: 0.6 },
      { word: "three", start: 1.2, end: 1.5 },
    ];
    expect(buildSentences(words, 0.45).map((s) => s.text)).toEqual(["one two", "three"]);
  });

  it("split speech with no pause at its widest gap, so no sentence outgrows the limit", () => {
    const words = Array.from({ length: 100 }, (_, i) => ({ word: `w${i}`, start: i * 0.4 + (i === 50 ? 0.2 : 0), end: i * 0.4 + 0.35 }));
    const sentences = buildSentences(words, 0.45, 20);
    expect(sentences.length).toBeGreaterThan(1);
    for (const s of sentences) expect(s.end - s.start).toBeLessThanOrEqual(20);
  });
});
