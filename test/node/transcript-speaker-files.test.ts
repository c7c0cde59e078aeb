import { parseSync, type NodeCue } from "subtitle";
import { describe, expect, it } from "vitest";
import type { SpeakerFileOptions } from "../../contracts/speaker-turns";
import { speakerList } from "../../contracts/speakers";
import { buildCues, toFullText, toSegmentsJson, toSrt, toVtt } from "../../contracts/subtitles";
import type { Segment } from "../../contracts/transcript";
import { said } from "../support/speaker-segments";

/**
 * The transcript files with speakers (contracts/subtitles.ts): SRT names a speaker where a turn
 * starts, WebVTT opens every cue with a voice span, the text has a line per turn, the segments JSON
 * carries the speaker list; names come from the list, labels stand in for the unnamed.
 */

/** Ada (named) asks, SPEAKER_01 (unnamed) answers at length, Ada again. */
const INTERVIEW: Segment[] = [
  said(0, "SPEAKER_00", "Where did the expedition start?", 0),
  said(1, "SPEAKER_01", "We started in the north. The first camp was on the ridge above the glacier, a long day of walking.", 3),
  said(2, "SPEAKER_01", "Then we went down.", 12),
  said(3, "SPEAKER_00", "And then?", 15),
];
const SPEAKERS = speakerList(INTERVIEW, { SPEAKER_00: "Ada" });
const NAMES: SpeakerFileOptions = { speakers: SPEAKERS, speakerLabels: true };

const cuesOf = (text: string): NodeCue["data"][] => parseSync(text).flatMap((n) => (n.type === "cue" ? [n.data] : []));
const srtTexts = (srt: string) => cuesOf(srt).map((c) => c.text);

describe("SRT with speakers", () => {
  it("names the speaker on the first cue of each turn only, a name from the list or else the label", () => {
    const texts = srtTexts(toSrt(INTERVIEW, NAMES));
    const prefixed = texts.filter((t) => /^(Ada|SPEAKER_01): /.test(t));
    expect(prefixed.map((t) => t.split(":")[0])).toEqual(["Ada", "SPEAKER_01", "Ada"]);
    expect(texts.length).toBeGreaterThan(prefixed.length);
    expect(texts[0]).toBe("Ada: Where did the expedition start?");
  });

  it("a prefixed cue still keeps to two lines of at most 42 characters", () => {
    const long = [said(0, "SPEAKER_00", "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike", 0)];
    const named: SpeakerFileOptions = { speakers: [{ label: "SPEAKER_00", name: "Professor Adelaide" }], speakerLabels: true };
    for (const cue of cuesOf(toSrt(long, named))) {
      const lines = cue.text.split("\n");
      expect(lines.length).toBeLessThanOrEqual(2);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(42);
    }
  });

  it("with speaker labels off, is the file the transcript would have without speakers", () => {
    const unlabelled = INTERVIEW.map(({ speaker: _, words, ...s }) => ({ ...s, words: words?.map(({ speaker: __, ...w }) => w) }));
    expect(toSrt(INTERVIEW, { ...NAMES, speakerLabels: false })).toBe(toSrt(unlabelled));
  });

  it("a line break in a name becomes a space, so the cue is not cut short", () => {
    const named: SpeakerFileOptions = { speakers: [{ label: "SPEAKER_00", name: "Ada\n\nLovelace" }], speakerLabels: true };
    const [cue, ...rest] = srtTexts(toSrt([INTERVIEW[0]!], named));
    expect(rest).toEqual([]);
    expect(cue!.replace("\n", " ")).toBe("Ada Lovelace: Where did the expedition start?");
  });
});

describe("WebVTT with speakers", () => {
  it("opens every cue of a diarized transcript with a voice span, and an independent parser reads the cues back", () => {
    const vtt = toVtt(INTERVIEW, NAMES);
    const cues = cuesOf(vtt);
    expect(cues.length).toBe(buildCues(INTERVIEW).length);
    expect(cues.every((c) => /^<v (Ada|SPEAKER_01)>/.test(c.text))).toBe(true);
    expect(cues.at(-1)!.text).toBe("<v Ada>And then?");
  });

  it("escapes &, < and > in the name and in the text", () => {
    const seg = said(0, "SPEAKER_00", "a <b> & c", 0);
    const vtt = toVtt([seg], { speakers: [{ label: "SPEAKER_00", name: "Tom & <Jerry>" }], speakerLabels: true });
    expect(vtt).toContain("<v Tom &amp; &lt;Jerry&gt;>a &lt;b&gt; &amp; c\n");
  });

  it("has no voice spans with speaker labels off", () => {
    expect(toVtt(INTERVIEW, { ...NAMES, speakerLabels: false })).not.toContain("<v ");
  });
});

describe("cue building", () => {
  it("never puts two speakers' words in one cue, even short turns close together", () => {
    const quick = [said(0, "SPEAKER_00", "Yes.", 0), said(1, "SPEAKER_01", "No", 0.4), said(2, "SPEAKER_00", "maybe", 0.8)];
    expect(buildCues(quick).map((c) => c.speaker)).toEqual(["SPEAKER_00", "SPEAKER_01", "SPEAKER_00"]);
  });

  it("cuts a cue where a word's speaker changes inside one segment", () => {
    const seg = said(0, "SPEAKER_00", "one two three four", 0);
    seg.words = seg.words!.map((w, i) => (i >= 2 ? { ...w, speaker: "SPEAKER_01" } : w));
    expect(buildCues([seg]).map((c) => [c.speaker, c.lines.join(" ")])).toEqual([
      ["SPEAKER_00", "one two"],
      ["SPEAKER_01", "three four"],
    ]);
  });
});

describe("plain text with speakers", () => {
  it("has one line per speaker turn, the name before it", () => {
    expect(toFullText(INTERVIEW, NAMES)).toBe(
      "Ada: Where did the expedition start?\n" +
        "SPEAKER_01: We started in the north. The first camp was on the ridge above the glacier, a long day of walking. Then we went down.\n" +
        "Ada: And then?\n",
    );
  });

  it("without speakers, has one segment per line as before", () => {
    expect(toFullText(INTERVIEW)).toBe(INTERVIEW.map((s) => `${s.text}\n`).join(""));
  });
});

describe("segments JSON with speakers", () => {
  it("carries the speaker list with its names and each segment's speaker", () => {
    const doc = JSON.parse(
      toSegmentsJson({ language: "en", durationSec: 16, engine: "e", model: "m", speakers: SPEAKERS, segments: INTERVIEW }),
    ) as { speakers: Array<{ label: string; name: string | null }>; segments: Segment[] };
    expect(doc.speakers.map((s) => [s.label, s.name])).toEqual([
      ["SPEAKER_00", "Ada"],
      ["SPEAKER_01", null],
    ]);
    expect(doc.segments.map((s) => s.speaker)).toEqual(["SPEAKER_00", "SPEAKER_01", "SPEAKER_01", "SPEAKER_00"]);
  });
});
