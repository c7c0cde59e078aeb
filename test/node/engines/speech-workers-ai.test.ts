import { describe, expect, it } from "vitest";
import { useFixture } from "../../support/engine-conformance";
import { FAKE_AUDIO, WORKERS_AI } from "../../support/speech-backends";

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

  it("parses result.transcription_info.language and the words of result.segments", async () => {
    const r = await transcribe();
    expect(r).toMatchObject({ language: "en", durationSec: 3.2 });
    expect(r.words.map((w) => w.word)).toEqual(["Hello", "world."]);
    expect(r.segments).toHaveLength(1);
  });

  it("fails naming engine and model when the envelope carries no result", async () => {
    h().fake.model("@cf/openai/whisper-large-v3-turbo", () => null);
    await expect(transcribe()).rejects.toMatchObject({
      message: "workers-ai (@cf/openai/whisper-large-v3-turbo): answered without a transcription: no result",
    });
  });
});
