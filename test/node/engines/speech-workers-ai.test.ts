import { describe, expect, it } from "vitest";
import { useFixture } from "../../support/engine-conformance";
import { engineEnv } from "../../support/hosted-fakes";
import { FAKE_AUDIO, speechEngine, WORKERS_AI } from "../../support/speech-backends";

/** Workers AI's REST format; shared behaviour is in speech.conformance.test.ts. */
const h = useFixture(WORKERS_AI.start);
const transcribe = (language?: string) =>
  h()
    .engine()
    .transcribe(h().audio, { signal: AbortSignal.timeout(20_000), ...(language ? { language } : {}) });

describe("workers-ai speech engine", () => {
  it("POSTs base64 audio as JSON to accounts/{account}/ai/run/@cf/openai/whisper-large-v3-turbo with the API token", async () => {
    await transcribe("en");
    const req = h().fake.requests[0]!;
    expect(req.path).toBe("/client/v4/accounts/acc123/ai/run/@cf/openai/whisper-large-v3-turbo");
    expect(req.headers.authorization).toBe("Bearer cf-token");
    expect(req.json()).toEqual({ audio: FAKE_AUDIO.toString("base64"), language: "en" });
  });

  it("sends the vocabulary as initial_prompt to whisper-large-v3-turbo", async () => {
    const r = await h()
      .engine()
      .transcribe(h().audio, { signal: AbortSignal.timeout(20_000), vocabulary: ["Okonkwo", "Kubernetes"] });
    expect(h().fake.requests[0]!.json()).toMatchObject({ initial_prompt: "Okonkwo, Kubernetes." });
    expect(r.vocabulary).toEqual({ method: "initial_prompt", termsUsed: 2, termsDropped: 0, dropped: {} });
  });

  it("sends no prompt to a model whose input takes none, dropping every term as model_takes_no_prompt", async () => {
    // A model without initial_prompt in its documented input (whisper-tiny-en and whisper take audio only).
    const other = "@cf/openai/whisper-tiny-en";
    h().fake.model(other, (input) => {
      if ("initial_prompt" in input) throw new Error("Unknown property '/initial_prompt'");
      return { text: "Hello world.", segments: [] };
    });
    const r = await speechEngine("workers-ai", engineEnv(h()), other).transcribe(h().audio, {
      signal: AbortSignal.timeout(20_000),
      vocabulary: ["Okonkwo", "Kubernetes"],
    });
    expect(h().fake.requests[0]!.json()).not.toHaveProperty("initial_prompt");
    expect(r.vocabulary).toEqual({ method: "none", termsUsed: 0, termsDropped: 2, dropped: { model_takes_no_prompt: 2 } });
  });

  it("parses result.transcription_info.language and the words of result.segments", async () => {
    const r = await transcribe();
    expect(r).toMatchObject({ language: "en", durationSec: 3.2 });
    expect(r.words.map((w) => w.word)).toEqual(["Hello", "world."]);
    expect(r.segments).toHaveLength(1);
  });

  it("reports Whisper's language_probability as the confidence of a language it detected", async () => {
    expect((await transcribe()).languageConfidence).toBe(0.98);
  });

  it("reports no language confidence when the language was given, since nothing was detected", async () => {
    expect((await transcribe("en")).languageConfidence).toBeUndefined();
  });

  it("fails naming engine and model when the envelope carries no result", async () => {
    h().fake.model("@cf/openai/whisper-large-v3-turbo", () => null);
    await expect(transcribe()).rejects.toMatchObject({
      message: "workers-ai (@cf/openai/whisper-large-v3-turbo): answered without a transcription: no result",
    });
  });
});
