import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import { StepFailure } from "../../contracts/step-failure";
import { createSpeechEngine } from "../../gpu-runner/engines/speech/factory";
import { parsePocketSphinxTimes } from "../../gpu-runner/engines/speech/local-pocketsphinx";
import { LIBRIVOX_0880 } from "../support/media-fixtures";

const engine = () => createSpeechEngine(DEFAULT_SETTINGS.transcription, {});

describe("local PocketSphinx engine", () => {
  it("is the default engine", () => {
    expect(engine()).toMatchObject({ engine: "local-pocketsphinx", inputFormat: "wav", detectsLanguage: false, languages: ["en"] });
  });

  it("gives every word a posterior confidence and keeps within the recording", async () => {
    // Words and their order are checked in speech.conformance.test.ts.
    const r = await engine().transcribe(LIBRIVOX_0880, { signal: AbortSignal.timeout(30_000) });
    expect(r.words.every((w) => w.confidence !== undefined && w.confidence >= 0 && w.confidence <= 1)).toBe(true);
    expect(r.words.at(-1)!.end).toBeLessThanOrEqual(3);
  });

  it("fails other languages as not supported by the configured engine", async () => {
    const err = await engine()
      .transcribe(LIBRIVOX_0880, { language: "es", signal: AbortSignal.timeout(5_000) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepFailure);
    expect(err).toMatchObject({
      code: "unsupported_language",
      retryable: false,
      message: "language es is not supported by the configured engine local-pocketsphinx (supported: en)",
    });
  });
});

describe("parsing PocketSphinx -time output", () => {
  const OUTPUT = [
    "he was not an illness those young man",
    "<s> 7.250 7.270 0.999700",
    "he 7.280 7.380 0.998601",
    "was(2) 7.390 7.600 0.999700",
    "<sil> 8.040 8.170 0.648593",
    "[NOISE] 8.170 8.180 0.5",
    "++BREATH++ 8.180 8.200 0.5",
    "young 9.120 9.370 0.829509",
    "</s> 9.790 10.020 1.000000",
  ].join("\n");

  it("keeps words with their times and posterior confidences", () => {
    expect(parsePocketSphinxTimes(OUTPUT)[0]).toEqual({ word: "he", start: 7.28, end: 7.38, confidence: 0.998601 });
  });

  it("drops fillers and maps alternate pronunciations to the base word", () => {
    expect(parsePocketSphinxTimes(OUTPUT).map((w) => w.word)).toEqual(["he", "was", "young"]);
  });

  it("ignores hypothesis lines", () => {
    expect(parsePocketSphinxTimes("hello world 1 2")).toEqual([]);
  });
});
