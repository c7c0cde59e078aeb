import { describe, expect, it } from "vitest";
import { fastRetryEnv, useFixture } from "../../support/engine-conformance";
import { WHISPER_VERSION } from "../../support/fakes/replicate";
import { FAKE_AUDIO, REPLICATE, speechEngine } from "../../support/speech-backends";

/** Replicate's predictions API with openai/whisper; shared behaviour is in speech.conformance.test.ts. */
const h = useFixture(REPLICATE.start);
const transcribe = (language?: string, signal = AbortSignal.timeout(20_000)) =>
  h()
    .engine()
    .transcribe(h().audio, { signal, ...(language ? { language } : {}) });

const SPOKEN = {
  language: "en",
  duration: 3,
  segments: [
    { start: 0, end: 2, text: "Hello world.", avgLogprob: -0.1, words: [] },
    { start: 2.5, end: 3, text: "Bye.", avgLogprob: -0.3, words: [] },
  ],
};

describe("replicate speech engine", () => {
  it("creates a prediction for the whisper version with the audio inline, the token and Prefer: wait", async () => {
    await transcribe("en");
    const req = h().fake.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/predictions");
    expect(req.headers.authorization).toBe("Bearer r8-token");
    expect(req.headers.prefer).toMatch(/^wait=\d+$/);
    const body = req.json() as { version: string; input: Record<string, unknown> };
    expect(body.version).toBe(WHISPER_VERSION);
    expect(body.input).toMatchObject({
      model: "large-v3",
      language: "en",
      audio: `data:audio/mpeg;base64,${FAKE_AUDIO.toString("base64")}`,
    });
  });

  it("sends the vocabulary as the whisper model's initial_prompt input", async () => {
    const r = await h()
      .engine()
      .transcribe(h().audio, { signal: AbortSignal.timeout(20_000), vocabulary: ["Okonkwo", "Kubernetes"] });
    const body = h().fake.requests[0]!.json() as { input: Record<string, unknown> };
    expect(body.input.initial_prompt).toBe("Okonkwo, Kubernetes.");
    expect(r.vocabulary).toEqual({ method: "initial_prompt", termsUsed: 2, termsDropped: 0, dropped: {} });
  });

  it("sends no initial_prompt without a vocabulary", async () => {
    await transcribe();
    expect((h().fake.requests[0]!.json() as { input: Record<string, unknown> }).input).not.toHaveProperty("initial_prompt");
  });

  it("parses detected_language and segments, spreading segment time over its words", async () => {
    h().fake.transcript = SPOKEN;
    const r = await transcribe();
    expect(r.language).toBe("en");
    expect(r.words.map((w) => w.word)).toEqual(["Hello", "world.", "Bye."]);
    expect(r.words[0]!.start).toBe(0);
    expect(r.words[1]!.end).toBeCloseTo(2);
    expect(r.words[0]!.confidence).toBeCloseTo(Math.exp(-0.1));
  });

  it("polls a prediction that is still running until it succeeds", async () => {
    h().fake.plan({ polls: 2 });
    const r = await transcribe();
    expect(r.words).toHaveLength(2);
    const [create, ...polls] = h().fake.requests;
    const id = [...h().fake.predictions.keys()][0]!;
    expect(create!.method).toBe("POST");
    expect(polls.map((q) => `${q.method} ${q.path}`)).toEqual([`GET /v1/predictions/${id}`, `GET /v1/predictions/${id}`]);
  });

  it("runs a new prediction when one fails, and names the last failure after the last attempt", async () => {
    h().fake.plan({ outcome: "failed", error: "CUDA out of memory" });
    expect((await transcribe()).words).toHaveLength(2);
    expect(h().fake.predictions.size).toBe(2);

    h().fake.plan(...Array.from({ length: 3 }, () => ({ outcome: "failed" as const, error: "CUDA out of memory" })));
    await expect(transcribe()).rejects.toMatchObject({
      retryable: true,
      message: expect.stringMatching(
        /^replicate \(openai\/whisper:[0-9a-f]+\): prediction fake\d+ failed after 3 attempts: CUDA out of memory$/,
      ),
    });
  });

  it("cancels the running prediction when the task is cancelled", async () => {
    h().fake.plan({ polls: 1_000 });
    const ac = new AbortController();
    const pending = transcribe(undefined, ac.signal);
    await expect.poll(() => h().fake.requests.some((r) => r.method === "GET")).toBe(true);
    ac.abort(new Error("cancel requested"));
    await expect(pending).rejects.toThrow("cancel requested");
    await expect.poll(() => [...h().fake.predictions.values()][0]?.status).toBe("canceled");
  });

  it("creates official models (no version) through /models/{owner}/{name}/predictions", async () => {
    h().fake.version("official-version", "openai/whisper-official", () => ({ detected_language: "english", segments: [] }));
    const engine = speechEngine("replicate", { ...fastRetryEnv("SPEECH"), ...h().env }, "openai/whisper-official");
    await engine.transcribe(h().audio, { signal: AbortSignal.timeout(20_000) });
    expect(h().fake.requests[0]!.path).toBe("/v1/models/openai/whisper-official/predictions");
  });
});
