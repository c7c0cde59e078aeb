import { describe, expect, it } from "vitest";
import type { Diarization, DiarizationEngine } from "../../../gpu-runner/engines/diarization/interface";
import { abortAfter, hostedTransportCases, requiredSettingCase, useFixture } from "../../support/engine-conformance";
import { DIARIZATION_BACKENDS, HOSTED_DIARIZATION_BACKENDS } from "../../support/diarization-backends";
import { scoreAttribution } from "../../support/two-voice";

/**
 * What every diarization engine does, whatever its backend: the local classical engine on the
 * two-voice conversation, and each hosted API against its fake. Details of one backend live in
 * diarization-<backend>.test.ts.
 */
const diarize = (engine: DiarizationEngine, audioPath: string, bounds: { minSpeakers?: number; maxSpeakers?: number } = {}) =>
  engine.diarize({ audioPath, signal: AbortSignal.timeout(30_000), ...bounds });

describe.each(DIARIZATION_BACKENDS)("$name diarization engine", (backend) => {
  const h = useFixture(backend.start);

  it("names its engine and model", () => {
    expect(h().engine()).toMatchObject({ engine: backend.name, model: backend.model });
  });

  it("finds the two voices of the conversation, labelled SPEAKER_00 and SPEAKER_01 by first appearance", async () => {
    const r = await diarize(h().engine(), h().sample.wav);
    expect(r.speakers).toEqual(["SPEAKER_00", "SPEAKER_01"]);
    expect(r.turns[0]!.speaker).toBe("SPEAKER_00");
    expect(scoreAttribution(h().sample.truth, r.turns).accuracy).toBeGreaterThanOrEqual(0.9);
  });

  it("returns turns sorted by time, never overlapping, and lists exactly the labels they use", async () => {
    const r: Diarization = await diarize(h().engine(), h().sample.wav);
    for (const [i, t] of r.turns.entries()) {
      expect(t.end).toBeGreaterThan(t.start);
      if (i > 0) expect(t.start).toBeGreaterThanOrEqual(r.turns[i - 1]!.end);
    }
    expect(r.speakers).toEqual([...new Set(r.turns.map((t) => t.speaker))]);
  });

  it("finds one speaker when maxSpeakers is 1", async () => {
    const r = await diarize(h().engine(), h().sample.wav, { maxSpeakers: 1 });
    expect(r.speakers).toEqual(["SPEAKER_00"]);
  });

  it("finds nobody in a recording where nothing is said", async () => {
    expect(await diarize(h().engine(), await h().silence())).toEqual({ turns: [], speakers: [] });
  });

  it("stops when the task is cancelled, rejecting with the signal's reason", async () => {
    h().hang();
    const reason = new Error("cancel requested");
    await expect(
      h()
        .engine()
        .diarize({ audioPath: h().sample.wav, signal: abortAfter(100, reason) }),
    ).rejects.toBe(reason);
  });
});

describe.each(HOSTED_DIARIZATION_BACKENDS)("$name diarization engine over HTTP", (backend) => {
  const h = useFixture(backend.start);

  hostedTransportCases(h, {
    name: backend.name,
    model: backend.model,
    run: (engine, signal) => engine.diarize({ audioPath: h().clip, signal }),
    expectResult: (r) => expect((r as Diarization).speakers).toEqual(["SPEAKER_00", "SPEAKER_01"]),
  });

  requiredSettingCase("diarization", h);
});
