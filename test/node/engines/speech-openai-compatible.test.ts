import { describe, expect, it } from "vitest";
import { useFixture } from "../../support/engine-conformance";
import { FAKE_AUDIO, OPENAI_COMPATIBLE, speechEngine } from "../../support/speech-backends";
import { engineEnv } from "../../support/hosted-fakes";

/** The OpenAI-compatible `/v1/audio/transcriptions` format; shared behaviour is in speech.conformance.test.ts. */
const h = useFixture(OPENAI_COMPATIBLE.start);
const transcribe = (language?: string) =>
  h()
    .engine()
    .transcribe(h().audio, { signal: AbortSignal.timeout(20_000), ...(language ? { language } : {}) });

describe("openai-compatible speech engine", () => {
  it("POSTs multipart to /v1/audio/transcriptions with model, verbose_json, word and segment granularities, language and bearer auth", async () => {
    await transcribe("en");
    const req = h().fake.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/audio/transcriptions");
    expect(req.headers.authorization).toBe("Bearer sk-test");
    const form = await req.formData();
    expect(form.get("model")).toBe("Systran/faster-whisper-small");
    expect(form.get("response_format")).toBe("verbose_json");
    expect(form.getAll("timestamp_granularities[]")).toEqual(["word", "segment"]);
    expect(form.get("language")).toBe("en");
    const file = form.get("file") as File;
    expect(file.name).toBe("chunk-0001.mp3");
    expect(Buffer.from(await file.arrayBuffer())).toEqual(FAKE_AUDIO);
  });

  it("parses verbose_json: language name to code, trimmed words with probabilities, segments, duration", async () => {
    const r = await transcribe();
    expect(r.language).toBe("en");
    expect(r.durationSec).toBe(3.2);
    expect(r.words).toEqual([
      { word: "Hello", start: 0.1, end: 0.5, confidence: 0.93 },
      { word: "world.", start: 0.6, end: 1.1 },
    ]);
    expect(r.segments).toEqual([{ start: 0.1, end: 1.1, text: "Hello world." }]);
  });

  it("sends the vocabulary as the prompt field, the terms comma-separated in the caller's order", async () => {
    const r = await h()
      .engine()
      .transcribe(h().audio, { signal: AbortSignal.timeout(20_000), vocabulary: ["Okonkwo", "Kubernetes", "TikTok"] });
    expect((await h().fake.requests[0]!.formData()).get("prompt")).toBe("Okonkwo, Kubernetes, TikTok.");
    expect(r.vocabulary).toEqual({ method: "prompt", termsUsed: 3, termsDropped: 0, dropped: {} });
  });

  it("sends no prompt field without a vocabulary", async () => {
    await transcribe();
    expect((await h().fake.requests[0]!.formData()).has("prompt")).toBe(false);
  });

  it("omits the language field when no hint is given, so the server detects it", async () => {
    await transcribe();
    expect((await h().fake.requests[0]!.formData()).has("language")).toBe(false);
  });

  it("sends the whole file again on a retry", async () => {
    h().fake.fail({ status: 500 });
    await transcribe();
    const file = (await h().fake.requests[1]!.formData()).get("file") as File;
    expect(file.size).toBe(FAKE_AUDIO.length);
  });

  it("uses OPENAI_COMPAT_MODEL over the settings' model", async () => {
    await h()
      .engine({ OPENAI_COMPAT_MODEL: "whisper-1" })
      .transcribe(h().audio, { signal: AbortSignal.timeout(20_000) });
    expect((await h().fake.requests[0]!.formData()).get("model")).toBe("whisper-1");
  });

  it("is unavailable when the base URL is not an http(s) URL or the audio format is unknown", () => {
    expect(() => h().engine({ OPENAI_COMPAT_BASE_URL: "gpu-box:8000" })).toThrow(
      "speech engine is not configured on this runner: OPENAI_COMPAT_BASE_URL must be an http(s) URL",
    );
    expect(() => h().engine({ OPENAI_COMPAT_AUDIO_FORMAT: "flac" })).toThrow(
      "speech engine is not configured on this runner: OPENAI_COMPAT_AUDIO_FORMAT must be mp3, ogg or wav",
    );
  });
});

describe("openai-compatible speech engine with a diarizing model (gpt-4o-transcribe-diarize)", () => {
  const DIARIZE = "gpt-4o-transcribe-diarize";
  const diarizing = () => speechEngine("openai-compatible", engineEnv(h()), DIARIZE);
  const twoTurns = () => {
    h().fake.transcript = {
      language: "en",
      duration: 4,
      segments: [
        { start: 0.1, end: 1.1, text: "How was the trip?", words: [] },
        { start: 1.3, end: 2.9, text: "Long, but worth it.", words: [] },
      ],
    };
  };

  it("says it labels speakers and cannot detect the language", () => {
    expect({ labelsSpeakers: diarizing().labelsSpeakers, detectsLanguage: diarizing().detectsLanguage }).toEqual({
      labelsSpeakers: true,
      detectsLanguage: false,
    });
  });

  it("asks for diarized_json with chunking_strategy auto and sends no prompt, reporting the vocabulary unused", async () => {
    const r = await diarizing().transcribe(h().audio, { signal: AbortSignal.timeout(20_000), language: "en", vocabulary: ["Okonkwo"] });
    const form = await h().fake.requests[0]!.formData();
    expect([form.get("response_format"), form.get("chunking_strategy"), form.has("prompt")]).toEqual(["diarized_json", "auto", false]);
    expect(r.vocabulary).toEqual({ method: "none", termsUsed: 0, termsDropped: 1, dropped: { model_takes_no_prompt: 1 } });
  });

  it("answers the model's speaker turns and words spread over each segment", async () => {
    twoTurns();
    const r = await diarizing().transcribe(h().audio, { signal: AbortSignal.timeout(20_000), language: "en" });
    expect(r.speakerTurns).toEqual([
      { start: 0.1, end: 1.1, speaker: "A" },
      { start: 1.3, end: 2.9, speaker: "B" },
    ]);
    expect(r.words.map((w) => w.word)).toEqual(["How", "was", "the", "trip?", "Long,", "but", "worth", "it."]);
    expect(r.language).toBe("en");
  });
});
