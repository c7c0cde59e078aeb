import { parseSync } from "subtitle";
import { describe, expect, it } from "vitest";
import { renderTranscription, verboseTranscription, type TranscriptForOpenAi } from "../../contracts/openai-transcription-formats";
import type { Segment } from "../../contracts/transcript";

/** A transcript in each of OpenAI's `response_format`s. */

const segments: Segment[] = [
  {
    id: 0,
    start: 0.5,
    end: 2.25,
    text: "Hello there.",
    confidence: 0.8,
    speaker: "SPEAKER_00",
    words: [
      { word: "Hello", start: 0.5, end: 1.1, speaker: "SPEAKER_00" },
      { word: "there.", start: 1.2, end: 2.25, speaker: "SPEAKER_00" },
    ],
  },
  { id: 1, start: 3, end: 4.5, text: "General Kenobi!", speaker: "SPEAKER_01" },
];
const transcript: TranscriptForOpenAi = { language: "en", durationSec: 4.6, segments };

describe("json and text", () => {
  it("json is the whole text and the duration billed, in whole seconds", () => {
    const r = renderTranscription(transcript, "json", []);
    expect(r.contentType).toBe("application/json");
    expect(JSON.parse(r.body)).toEqual({ text: "Hello there. General Kenobi!", usage: { type: "duration", seconds: 5 } });
  });

  it("text is the whole text on one line, as text/plain", () => {
    expect(renderTranscription(transcript, "text", [])).toEqual({
      contentType: "text/plain; charset=utf-8",
      body: "Hello there. General Kenobi!\n",
    });
  });

  it("an empty transcript is an empty text, not an error", () => {
    expect(JSON.parse(renderTranscription({ ...transcript, segments: [] }, "json", []).body).text).toBe("");
  });
});

describe("srt and vtt", () => {
  it("srt has a cue per stretch of speech at the transcript's times, without speaker names", () => {
    const body = renderTranscription(transcript, "srt", []).body;
    const cues = parseSync(body).filter((n) => n.type === "cue");
    expect(cues.map((c) => c.data.text)).toEqual(["Hello there.", "General Kenobi!"]);
    expect(cues[0]?.data.start).toBe(500);
    expect(body).not.toMatch(/SPEAKER_0/);
  });

  it("vtt is WebVTT with the same cues and no voice spans", () => {
    const body = renderTranscription(transcript, "vtt", []).body;
    expect(body.startsWith("WEBVTT")).toBe(true);
    expect(parseSync(body).filter((n) => n.type === "cue")).toHaveLength(2);
    expect(body).not.toMatch(/<v /);
  });
});

describe("verbose_json", () => {
  it("carries task, language, duration and text, and segments by default (OpenAI's default granularity)", () => {
    const v = verboseTranscription(transcript, []);
    expect(v).toMatchObject({ task: "transcribe", language: "en", duration: 4.6, text: "Hello there. General Kenobi!" });
    expect(v.segments).toHaveLength(2);
    expect(v.words).toBeUndefined();
  });

  it("fills OpenAI's segment fields: real times and text, fixed documented values where no engine measures one", () => {
    expect(verboseTranscription(transcript, ["segment"]).segments).toEqual([
      {
        id: 0,
        seek: 50,
        start: 0.5,
        end: 2.25,
        text: "Hello there.",
        tokens: [],
        temperature: 0,
        avg_logprob: -0.223,
        compression_ratio: 0,
        no_speech_prob: 0,
      },
      {
        id: 1,
        seek: 300,
        start: 3,
        end: 4.5,
        text: "General Kenobi!",
        tokens: [],
        temperature: 0,
        avg_logprob: 0,
        compression_ratio: 0,
        no_speech_prob: 0,
      },
    ]);
  });

  it("words only when asked for, from the segments that have word timings, without segments when only words were asked", () => {
    const v = verboseTranscription(transcript, ["word"]);
    expect(v.words).toEqual([
      { word: "Hello", start: 0.5, end: 1.1 },
      { word: "there.", start: 1.2, end: 2.25 },
    ]);
    expect(v.segments).toBeUndefined();
  });
});
