import { writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { StepFailure } from "../../../contracts/step-failure";
import type { Diarization } from "../../../gpu-runner/engines/diarization/interface";
import { LOCAL_MFCC } from "../../support/diarization-backends";
import { useFixture } from "../../support/engine-conformance";
import { rejectionOf } from "../../support/rejection";
import { conversationSample, THREE_SPEAKER_PANEL, TWO_SPEAKER_INTERVIEW, type ConversationScript } from "../../support/conversations";
import { attribution } from "../../support/diarization-score";
import { scoreAttribution } from "../../support/two-voice";

/** The local classical engine (Silero VAD, MFCC windows, Ward clustering) on the two-voice TTS conversation; shared behaviour is in diarization.conformance.test.ts. */
const h = useFixture(LOCAL_MFCC.start);
const diarize = (bounds: { minSpeakers?: number; maxSpeakers?: number } = {}, audioPath = h().sample.wav) =>
  h()
    .engine()
    .diarize({ audioPath, signal: AbortSignal.timeout(30_000), ...bounds });

describe("local-mfcc diarization engine", () => {
  let free: Diarization;
  beforeAll(async () => {
    free = await diarize();
  });

  it("finds exactly two speakers in the two-voice conversation", () => {
    expect(free.speakers).toHaveLength(2);
  });

  it("attributes at least 90% of the time it gives a speaker to the right voice", () => {
    expect(scoreAttribution(h().sample.truth, free.turns).accuracy).toBeGreaterThanOrEqual(0.9);
  });

  it("gives at least 90% of the time someone speaks to a speaker", () => {
    expect(scoreAttribution(h().sample.truth, free.turns).coverage).toBeGreaterThanOrEqual(0.9);
  });

  it("changes speaker where the voices take turns, one turn per utterance", () => {
    expect(free.turns).toHaveLength(h().sample.truth.length);
    const voiceOf = new Map(free.turns.map((t, i) => [t.speaker, h().sample.truth[i]!.voice]));
    expect(free.turns.map((t) => voiceOf.get(t.speaker))).toEqual(h().sample.truth.map((t) => t.voice));
  });

  it("honours maxSpeakers: 1 gives everything to one speaker", async () => {
    const r = await diarize({ maxSpeakers: 1 });
    expect(r.speakers).toEqual(["SPEAKER_00"]);
    expect(r.turns.every((t) => t.speaker === "SPEAKER_00")).toBe(true);
  });

  it("honours minSpeakers: 3 gives three labels even with two voices", async () => {
    const r = await diarize({ minSpeakers: 3 });
    expect(r.speakers).toEqual(["SPEAKER_00", "SPEAKER_01", "SPEAKER_02"]);
  });

  it("keeps to the two voices when the bounds allow 1 to 4", async () => {
    expect((await diarize({ minSpeakers: 1, maxSpeakers: 4 })).speakers).toHaveLength(2);
  });

  it("refuses audio that is not a 16 kHz mono 16-bit WAV, not retryable", async () => {
    const notWav = path.join(os.tmpdir(), `diarize-not-wav-${process.pid}.wav`);
    await writeFile(notWav, "this is not audio");
    const f = await rejectionOf(diarize({}, notWav), StepFailure);
    expect(f).toMatchObject({ code: "processing_failed", retryable: false, message: expect.stringContaining("16 kHz mono 16-bit WAV") });
  });
});

/**
 * The documented floor on conversations closer to real talk (test/support/conversations.ts):
 * overlapped turns and back-channels, which the engine cannot give two speakers at once, so the
 * floors are the goals, below what it measures (bench/diarization.ts).
 */
describe("local-mfcc diarization engine on conversations with overlaps and back-channels", () => {
  const diarizeConversation = async (script: ConversationScript) => {
    const sample = await conversationSample(script);
    const result = await h()
      .engine()
      .diarize({ audioPath: sample.wav, signal: AbortSignal.timeout(60_000) });
    return { result, score: attribution(sample.truth, result.turns) };
  };

  it("finds the two speakers of the interview and gives at least 90% of the time it attributes to the right one", async () => {
    const { result, score } = await diarizeConversation(TWO_SPEAKER_INTERVIEW);
    expect(result.speakers).toHaveLength(2);
    expect(score.accuracy).toBeGreaterThanOrEqual(0.9);
  });

  it("finds the three speakers of the panel and gives at least 80% of the time it attributes to the right one", async () => {
    const { result, score } = await diarizeConversation(THREE_SPEAKER_PANEL);
    expect(result.speakers).toHaveLength(3);
    expect(score.accuracy).toBeGreaterThanOrEqual(0.8);
  });
});
