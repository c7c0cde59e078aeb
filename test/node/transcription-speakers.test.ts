import { describe, expect, it } from "vitest";
import { conversationLine, speakerDisplayName, speakerList } from "../../contracts/speakers";
import type { Segment, Word } from "../../contracts/transcript";
import type { Diarization, SpeakerTurn } from "../../gpu-runner/engines/diarization/interface";
import { diarizedSegments } from "../../gpu-runner/services/transcription/speakers";
import { buildSegments } from "../../gpu-runner/services/transcription/merge";

/** Words of `text`, 0.3 s each with no gap, from `start`. */
function words(text: string, start: number): Word[] {
  return text.split(" ").map((word, i) => ({ word, start: start + i * 0.3, end: start + (i + 1) * 0.3 }));
}

function diarization(...turns: [number, number, string][]): Diarization {
  const list: SpeakerTurn[] = turns.map(([start, end, speaker]) => ({ start, end, speaker }));
  return { turns: list, speakers: [...new Set(list.map((t) => t.speaker))] };
}

const labels = (segments: readonly Segment[]) => segments.map((s) => [s.text, s.speaker]);

describe("speakers laid over a transcript's words", () => {
  it("cuts a segment at the turn change, so no segment spans two speakers", () => {
    // One pause-free run of words: the recogniser's segmentation alone keeps it whole.
    const heard = buildSegments(words("so where were you then I was at home", 0));
    expect(heard).toHaveLength(1);
    const out = diarizedSegments(heard, diarization([0, 1.2, "SPEAKER_00"], [1.2, 3, "SPEAKER_01"]));
    expect(labels(out)).toEqual([
      ["so where were you", "SPEAKER_00"],
      ["then I was at home", "SPEAKER_01"],
    ]);
    expect(out.map((s) => s.id)).toEqual([0, 1]);
  });

  it("labels every word with its segment's speaker, keeping the word timings", () => {
    const heard = buildSegments(words("yes of course", 0));
    const out = diarizedSegments(heard, diarization([0, 5, "SPEAKER_00"]));
    expect(out[0]!.words).toEqual(heard[0]!.words!.map((w) => ({ ...w, speaker: "SPEAKER_00" })));
  });

  it("gives a word the speaker whose turns overlap it most", () => {
    // "word" spans 0.3-0.6: SPEAKER_00 covers 0.05 s of it, SPEAKER_01 0.25 s.
    const out = diarizedSegments(buildSegments(words("one word", 0)), diarization([0, 0.35, "SPEAKER_00"], [0.35, 2, "SPEAKER_01"]));
    expect(labels(out)).toEqual([
      ["one", "SPEAKER_00"],
      ["word", "SPEAKER_01"],
    ]);
  });

  it("gives a word no turn overlaps to the nearest turn", () => {
    const heard = buildSegments([...words("hello there", 0), ...words("goodbye", 5)]);
    const out = diarizedSegments(heard, diarization([0, 0.6, "SPEAKER_00"], [6, 8, "SPEAKER_01"]));
    expect(out.at(-1)).toMatchObject({ text: "goodbye", speaker: "SPEAKER_01" });
  });

  it("numbers speakers by their first word, not by the diarization's labels", () => {
    const heard = buildSegments([...words("first voice", 1), ...words("second voice", 3)]);
    // The diarizer heard a third voice first (music, a cough) that no word belongs to.
    const out = diarizedSegments(heard, diarization([0, 0.9, "SPEAKER_00"], [1, 1.6, "SPEAKER_01"], [3, 3.6, "SPEAKER_02"]));
    expect(out.map((s) => s.speaker)).toEqual(["SPEAKER_00", "SPEAKER_01"]);
  });

  it("leaves a transcript unlabelled when the diarization found no speech", () => {
    const heard = buildSegments(words("quiet words", 0));
    expect(diarizedSegments(heard, { turns: [], speakers: [] })).toEqual(heard);
  });
});

describe("a transcript's speaker list", () => {
  const segments: Segment[] = [
    { id: 0, start: 0, end: 2.5, text: "a", speaker: "SPEAKER_00" },
    { id: 1, start: 2.5, end: 3, text: "b", speaker: "SPEAKER_01" },
    { id: 2, start: 3, end: 4, text: "c", speaker: "SPEAKER_00" },
  ];

  it("lists speakers in order of first appearance with their speaking time and segment count", () => {
    expect(speakerList(segments)).toEqual([
      { label: "SPEAKER_00", name: null, speakingSec: 3.5, segmentCount: 2 },
      { label: "SPEAKER_01", name: null, speakingSec: 0.5, segmentCount: 1 },
    ]);
  });

  it("carries names over by label", () => {
    expect(speakerList(segments, { SPEAKER_01: "Ada" }).map((s) => s.name)).toEqual([null, "Ada"]);
  });

  it("is empty for a transcript that was not diarized", () => {
    expect(speakerList([{ start: 0, end: 1 }])).toEqual([]);
  });

  it("shows a speaker's name, or its label when it has none", () => {
    const list = speakerList(segments, { SPEAKER_00: "Ada" });
    expect([speakerDisplayName("SPEAKER_00", list), speakerDisplayName("SPEAKER_01", list)]).toEqual(["Ada", "SPEAKER_01"]);
  });
});

describe("who talks, in a summary's words", () => {
  const speaker = (label: string, name: string | null, speakingSec: number) => ({ label, name, speakingSec, segmentCount: 1 });

  it("names the speakers, most speaking time first, a label where there is no name", () => {
    expect(conversationLine([speaker("SPEAKER_00", null, 5), speaker("SPEAKER_01", "Ada", 9)])).toBe(
      "A conversation between Ada and SPEAKER_00.",
    );
  });

  it("counts the speakers of a crowd and names the two who speak most", () => {
    const many = ["A", "B", "C", "D", "E"].map((n, i) => speaker(`SPEAKER_0${i}`, n, i));
    expect(conversationLine(many)).toBe("A conversation among 5 speakers, mostly E and D.");
  });

  it("says nothing of a single voice", () => {
    expect(conversationLine([speaker("SPEAKER_00", "Ada", 9)])).toBeNull();
  });
});
