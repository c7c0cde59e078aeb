import { describe, expect, it } from "vitest";
import { StepFailure } from "../../../contracts/step-failure";
import type { SpeechEngine } from "../../../gpu-runner/engines/speech/interface";
import { abortAfter, hostedTransportCases, requiredSettingCase, useFixture } from "../../support/engine-conformance";
import { rejectionOf } from "../../support/rejection";
import { HOSTED_SPEECH_BACKENDS, SPEECH_BACKENDS } from "../../support/speech-backends";

/**
 * What every speech engine does, whatever its backend: the local decoder, and each hosted API
 * against its fake. Format details of one backend live in speech-<backend>.test.ts.
 */
const transcribe = (engine: SpeechEngine, audio: string, signal: AbortSignal = AbortSignal.timeout(30_000)) =>
  engine.transcribe(audio, { signal });

describe.each(SPEECH_BACKENDS)("$name speech engine", (backend) => {
  const h = useFixture(backend.start);

  it("transcribes words with ordered times, and names its engine and model", async () => {
    const engine = h().engine();
    expect(engine).toMatchObject({ engine: backend.name, model: backend.model });
    const r = await transcribe(engine, h().audio);
    expect(r.words.map((w) => w.word).join(" ")).toMatch(h().expectedText);
    expect(r.language).toBe("en");
    for (const [i, w] of r.words.entries()) {
      expect(w.end).toBeGreaterThanOrEqual(w.start);
      if (i > 0) expect(w.start).toBeGreaterThanOrEqual(r.words[i - 1]!.end);
    }
    if (h().segments) expect(r.segments?.map((s) => s.text).join(" ")).toMatch(h().expectedText);
  });

  it("passes a vocabulary to the recogniser and says how, counting every term as used or dropped", async () => {
    const r = await h()
      .engine()
      .transcribe(h().audio, { signal: AbortSignal.timeout(30_000), vocabulary: ["Kubernetes", "Okonkwo"] });
    expect(r.vocabulary).toMatchObject({ method: backend.vocabularyMethod, termsUsed: 2, termsDropped: 0 });
  });

  it("reports no vocabulary use when none is given", async () => {
    expect((await transcribe(h().engine(), h().audio)).vocabulary).toBeUndefined();
  });

  it("stops when the task is cancelled, rejecting with the signal's reason", async () => {
    h().hang();
    const reason = new Error("cancel requested");
    const started = Date.now();
    await expect(transcribe(h().engine(), h().audio, abortAfter(100, reason))).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("fails with a retryable error that names the engine and model", async () => {
    const engine = h().engine(h().breakIt());
    const f = await rejectionOf(transcribe(engine, h().audio), StepFailure);
    expect(f).toMatchObject({ code: "processing_failed", retryable: true });
    expect(f.message.startsWith(`${backend.name} (${backend.model}): `)).toBe(true);
  });
});

describe.each(HOSTED_SPEECH_BACKENDS)("$name speech engine over HTTP", (backend) => {
  const h = useFixture(backend.start);

  hostedTransportCases(h, {
    name: backend.name,
    model: backend.model,
    run: (engine, signal) => engine.transcribe(h().audio, { signal }),
    expectResult: (r) =>
      expect((r as Awaited<ReturnType<SpeechEngine["transcribe"]>>).words.map((w) => w.word)).toEqual(["Hello", "world."]),
  });

  requiredSettingCase("speech", h);
});
