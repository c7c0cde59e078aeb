import fc from "fast-check";
import { parseSync, type NodeCue } from "subtitle";
import { describe, expect, it } from "vitest";
import type { Segment, Word } from "../../contracts/transcript";
import { buildSegments } from "../../gpu-runner/services/transcription/merge";
import { columns } from "../../contracts/text-words";
import { buildCues, formatTimestamp, segmentCues, toFullText, toSegmentsJson, toSrt, toVtt, wrapLines } from "../../contracts/subtitles";

/** Words of `text`, `wordSec` long each, separated by `gapSec`, starting at `start`. */
function timedWords(text: string, start = 0, wordSec = 0.3, gapSec = 0.05): Word[] {
  return text.split(" ").map((word, i) => ({ word, start: start + i * (wordSec + gapSec), end: start + i * (wordSec + gapSec) + wordSec }));
}

function segmentOf(words: Word[], id = 0): Segment {
  return { id, start: words[0]!.start, end: words.at(-1)!.end, text: words.map((w) => w.word).join(" "), words };
}

const cuesOf = (text: string): NodeCue["data"][] => parseSync(text).flatMap((n) => (n.type === "cue" ? [n.data] : []));

const LONG = "the quick brown fox jumps over the lazy dog while the farmer watches from his porch and wonders why foxes ever jump at all";

describe("SRT and WebVTT writers", () => {
  it("SRT numbers cues from 1 and uses HH:MM:SS,mmm timestamps that an independent parser reads back", () => {
    const segs = buildSegments(timedWords(LONG, 3661.5));
    const srt = toSrt(segs);
    const blocks = srt.trim().split("\n\n");
    blocks.forEach((b, i) => {
      const [num, times] = b.split("\n");
      expect(num).toBe(String(i + 1));
      expect(times).toMatch(/^\d{2}:\d{2}:\d{2},\d{3} --> \d{2}:\d{2}:\d{2},\d{3}$/);
    });
    const cues = cuesOf(srt);
    expect(cues).toHaveLength(blocks.length);
    expect(cues[0]!.start).toBe(3661500);
    expect(cues.map((c) => c.text.replace(/\n/g, " ")).join(" ")).toBe(LONG);
  });

  it("VTT starts with the WEBVTT header and uses HH:MM:SS.mmm timestamps that an independent parser reads back", () => {
    const vtt = toVtt(buildSegments(timedWords(LONG)));
    expect(vtt.startsWith("WEBVTT\n\n")).toBe(true);
    expect(vtt).toMatch(/\n\d{2}:\d{2}:\d{2}\.\d{3} --> \d{2}:\d{2}:\d{2}\.\d{3}\n/);
    const nodes = parseSync(vtt);
    expect(nodes[0]).toMatchObject({ type: "header" });
    expect(
      cuesOf(vtt)
        .map((c) => c.text.replace(/\n/g, " "))
        .join(" "),
    ).toBe(LONG);
  });

  it("a cue has at most 2 lines of at most 42 characters", () => {
    for (const cue of buildCues(buildSegments(timedWords(LONG)))) {
      expect(cue.lines.length).toBeLessThanOrEqual(2);
      for (const line of cue.lines) expect(line.length).toBeLessThanOrEqual(42);
    }
  });

  it("a cue never spans a sentence end", () => {
    const words = timedWords("It rained. We stayed in and read all day.");
    const cues = buildCues([segmentOf(words)]);
    expect(cues.map((c) => c.lines.join(" "))).toEqual(["It rained.", "We stayed in and read all day."]);
  });

  it("a cue never spans a pause longer than 0.7 s", () => {
    const words = [...timedWords("first part here"), ...timedWords("second part", 5)];
    const cues = buildCues([segmentOf(words)]);
    expect(cues.map((c) => c.lines.join(" "))).toEqual(["first part here", "second part"]);
  });

  it("a short cue is extended to the minimum duration but never over the next cue", () => {
    const a = [{ word: "Hi.", start: 1, end: 1.2 }];
    const b = [{ word: "Yes.", start: 1.5, end: 1.7 }];
    const c = [{ word: "Later.", start: 10, end: 10.2 }];
    const cues = buildCues([segmentOf(a, 0), segmentOf(b, 1), segmentOf(c, 2)]);
    expect(cues[0]).toMatchObject({ start: 1, end: 1.5 });
    expect(cues[1]).toMatchObject({ start: 1.5, end: 2.5 });
    expect(cues[2]).toMatchObject({ start: 10, end: 11 });
  });

  it("segments without words (edited text) still produce timed cues", () => {
    const cues = buildCues([{ id: 0, start: 0, end: 4, text: "edited by hand without timings" }]);
    expect(cues[0]).toMatchObject({ start: 0 });
    expect(cues.at(-1)!.end).toBeCloseTo(4);
  });

  it("timestamps are computed in whole milliseconds, never printing 60 seconds", () => {
    expect(formatTimestamp(59.9996, ",")).toBe("00:01:00,000");
    expect(formatTimestamp(3599.999, ".")).toBe("00:59:59.999");
    expect(formatTimestamp(0, ",")).toBe("00:00:00,000");
  });

  it("VTT escapes markup characters and neither format lets a cue contain -->", () => {
    const words = timedWords("a <b> & c --> d");
    const vtt = toVtt([segmentOf(words)]);
    expect(vtt).toContain("a &lt;b&gt; &amp; c -&gt; d");
    expect(toSrt([segmentOf(words)])).not.toMatch(/c -->/);
  });

  it("wrapLines balances two lines instead of leaving a dangling word", () => {
    const lines = wrapLines("one two three four five six seven eight nine ten eleven", 42, 2);
    expect(lines).toHaveLength(2);
    expect(Math.abs(lines[0]!.length - lines[1]!.length)).toBeLessThan(8);
  });

  it("Japanese cues break between words, with no spaces, at most 42 columns a line (a full-width character is two)", () => {
    const ja = "今日 は 東京 で 新しい 会議 を 開き ました 。 みんな で 未来 の 計画 に ついて 長く 話し 合い ました 。".split(" ");
    const words = ja.map((word, i) => ({ word, start: i * 0.3, end: i * 0.3 + 0.25 }));
    const cues = buildCues([segmentOf(words)]);
    expect(cues.flatMap((c) => c.lines).join("")).toBe(ja.join(""));
    for (const c of cues) {
      expect(c.lines.length).toBeLessThanOrEqual(2);
      for (const l of c.lines) expect(columns(l)).toBeLessThanOrEqual(42);
    }
  });

  it("a translated Japanese segment (text without spaces) is wrapped between its words into lines of at most 42 columns", () => {
    const text = "東京で新しい会議を開きました。みんなで未来の計画について長く話し合いました。";
    const [cue] = segmentCues([{ start: 0, end: 6, text }]);
    expect(cue!.lines.length).toBe(2);
    expect(cue!.lines.join("")).toBe(text);
    for (const l of cue!.lines) expect(columns(l)).toBeLessThanOrEqual(42);
  });

  it("for any word sequence, cues are in order, do not overlap and respect the line limits", () => {
    const wordArb = fc.stringMatching(/^[a-z]{1,12}[.,]?$/);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(wordArb, fc.double({ min: 0.05, max: 2, noNaN: true }), fc.double({ min: 0, max: 1.5, noNaN: true })), {
          minLength: 1,
          maxLength: 80,
        }),
        (spec) => {
          let t = 0;
          const words: Word[] = spec.map(([word, dur, gap]) => {
            const w = { word, start: t + gap, end: t + gap + dur };
            t = w.end;
            return w;
          });
          const srt = toSrt(buildSegments(words));
          const cues = cuesOf(srt);
          for (let i = 0; i < cues.length; i++) {
            const c = cues[i]!;
            expect(c.end).toBeGreaterThan(c.start);
            if (i > 0) expect(c.start).toBeGreaterThanOrEqual(cues[i - 1]!.end);
            const lines = c.text.split("\n");
            expect(lines.length).toBeLessThanOrEqual(2);
            for (const line of lines) expect(line.length <= 42 || !line.includes(" ")).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("full text and segments JSON writers", () => {
  it("full text has one segment per line", () => {
    const segs = buildSegments(timedWords("One. Two three."));
    expect(toFullText(segs)).toBe("One.\nTwo three.\n");
  });

  it("segments JSON carries language, duration, engine, model and the segments", () => {
    const segs = buildSegments(timedWords("hello there"));
    const doc = JSON.parse(toSegmentsJson({ language: "en", durationSec: 2, engine: "e", model: "m", segments: segs })) as Record<
      string,
      unknown
    >;
    expect(doc).toMatchObject({ language: "en", durationSec: 2, engine: "e", model: "m", segments: [{ id: 0, text: "hello there" }] });
  });
});
