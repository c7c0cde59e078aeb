import { describe, expect, it } from "vitest";
import { StepFailure } from "../../../contracts/step-failure";
import { createDiarizationEngine } from "../../../gpu-runner/engines/diarization/factory";
import { parseSeconds } from "../../../gpu-runner/engines/diarization/replicate";
import { FAKE_MP3, REPLICATE } from "../../support/diarization-backends";
import { engineEnv, type HostedFixture } from "../../support/hosted-fakes";
import { useFixture } from "../../support/engine-conformance";
import { MERONYM_DIARIZATION_VERSION, SPEAKER_DIARIZATION_3_VERSION } from "../../support/fakes/replicate";
import { rejectionOf } from "../../support/rejection";

/** Replicate's predictions API with a pyannote diarization model; shared behaviour is in diarization.conformance.test.ts. */
const h = useFixture(REPLICATE.start);
const diarize = (bounds: { minSpeakers?: number; maxSpeakers?: number } = {}, audioPath = h().clip) =>
  h()
    .engine()
    .diarize({ audioPath, signal: AbortSignal.timeout(20_000), ...bounds });
const sentInput = () => (h().fake.requests[0]!.json() as { version: string; input: Record<string, unknown> }).input;

describe("replicate diarization engine", () => {
  it("creates a prediction for the pinned speaker-diarization-3 version with the audio inline, the token and Prefer: wait", async () => {
    await diarize();
    const req = h().fake.requests[0]!;
    expect(req.path).toBe("/v1/predictions");
    expect(req.headers.authorization).toBe("Bearer r8-token");
    expect(req.headers.prefer).toMatch(/^wait=\d+$/);
    expect(req.json()).toEqual({
      version: SPEAKER_DIARIZATION_3_VERSION,
      input: { audio: `data:audio/mpeg;base64,${FAKE_MP3.toString("base64")}` },
    });
  });

  it("compresses a WAV to MP3 before sending it", async () => {
    await diarize({}, h().sample.wav);
    const audio = sentInput().audio as string;
    expect(audio.startsWith("data:audio/mpeg;base64,")).toBe(true);
    // 32 kbps: a small fraction of the WAV's 256 kbps.
    expect(Buffer.from(audio.split(",")[1]!, "base64").length).toBeLessThan(h().sample.durationSec * 5_000);
  });

  it("asks for num_speakers when minSpeakers equals maxSpeakers", async () => {
    await diarize({ minSpeakers: 2, maxSpeakers: 2 });
    expect(sentInput()).toMatchObject({ num_speakers: 2 });
    expect(sentInput()).not.toHaveProperty("min_speakers");
  });

  it("passes min_speakers and max_speakers as given", async () => {
    await diarize({ minSpeakers: 1, maxSpeakers: 3 });
    expect(sentInput()).toMatchObject({ min_speakers: 1, max_speakers: 3 });
  });

  it("renames pyannote's labels SPEAKER_NN by first appearance and reads H:MM:SS times", async () => {
    h().fake.speakerTurns = [
      { start: 61.5, end: 63, speaker: "SPEAKER_02" },
      { start: 63.5, end: 65, speaker: "SPEAKER_00" },
    ];
    expect((await diarize()).turns).toEqual([
      { start: 61.5, end: 63, speaker: "SPEAKER_00" },
      { start: 63.5, end: 65, speaker: "SPEAKER_01" },
    ]);
  });

  it("cuts overlapped speech so turns never overlap", async () => {
    h().fake.speakerTurns = [
      { start: 0, end: 4, speaker: "SPEAKER_00" },
      { start: 3, end: 6, speaker: "SPEAKER_01" },
      { start: 4.5, end: 5.5, speaker: "SPEAKER_00" },
    ];
    expect((await diarize()).turns).toEqual([
      { start: 0, end: 4, speaker: "SPEAKER_00" },
      { start: 4, end: 6, speaker: "SPEAKER_01" },
    ]);
  });

  it("reads meronym's output.json from the delivery host, without sending the API token there", async () => {
    const fixture: HostedFixture<unknown> = h();
    const engine = createDiarizationEngine("replicate", engineEnv(fixture), {
      model: `meronym/speaker-diarization:${MERONYM_DIARIZATION_VERSION}`,
    });
    const r = await engine.diarize({ audioPath: h().clip, signal: AbortSignal.timeout(20_000) });
    expect(r.speakers).toEqual(["SPEAKER_00", "SPEAKER_01"]);
    expect(h().fake.files.requests).toHaveLength(1);
    expect(h().fake.files.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("fails retryably, naming engine and model, when the output is not diarization", async () => {
    h().fake.version(SPEAKER_DIARIZATION_3_VERSION, "collectiveai-team/speaker-diarization-3", () => ({ text: "hello" }));
    const f = await rejectionOf(diarize(), StepFailure);
    expect(f).toMatchObject({
      retryable: true,
      message: expect.stringMatching(/^replicate \(collectiveai-team\/speaker-diarization-3:[0-9a-f]+\): diarization output/),
    });
  });
});

describe("pyannote times", () => {
  it("reads seconds given as numbers, numeric strings and H:MM:SS.ffffff clocks", () => {
    expect([parseSeconds(1.25), parseSeconds("1.25"), parseSeconds("0:01:01.250000"), parseSeconds("1:00:00.5")]).toEqual([
      1.25, 1.25, 61.25, 3600.5,
    ]);
  });

  it("reads anything else as not a number", () => {
    expect([parseSeconds(""), parseSeconds("soon")].every(Number.isNaN)).toBe(true);
  });
});
