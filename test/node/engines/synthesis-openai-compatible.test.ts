import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { VoiceSpec } from "../../../gpu-runner/engines/synthesis/interface";
import { useFixture } from "../../support/engine-conformance";
import { FAKE_SECONDS_PER_WORD } from "../../support/fakes/synthesis";
import { OPENAI_COMPATIBLE } from "../../support/synthesis-backends";

/** OpenAI's custom-voice and speech endpoints; shared behaviour is in synthesis.conformance.test.ts. */
const h = useFixture(OPENAI_COMPATIBLE.start);
let n = 0;

const createVoice = (env = {}) =>
  h()
    .engine(env)
    .createVoice({
      sampleWavPath: h().sample,
      language: "es",
      referenceOutPath: path.join(h().dir, `ref-${++n}.wav`),
      signal: AbortSignal.timeout(20_000),
    });

const speak = (voice: VoiceSpec, rate?: number) =>
  h()
    .engine()
    .synthesize({
      text: "uno dos tres cuatro",
      language: "es",
      voice,
      ...(rate ? { rate } : {}),
      outPath: path.join(h().dir, `out-${++n}.wav`),
      signal: AbortSignal.timeout(20_000),
    });

describe("openai-compatible synthesis engine", () => {
  it("uploads the reference clip once as the audio_sample of a new voice and records the server's voice id", async () => {
    const voice = await createVoice();
    const [req] = h().fake.requests;
    expect(h().fake.requests).toHaveLength(1);
    expect(`${req!.method} ${req!.path}`).toBe("POST /v1/audio/voices");
    expect(req!.headers.authorization).toBe("Bearer sk-test");
    const form = await req!.formData();
    const sample = form.get("audio_sample") as File;
    expect(Buffer.from(await sample.arrayBuffer())).toEqual(await readFile(path.join(h().dir, `ref-${n}.wav`)));
    expect(voice).toMatchObject({ kind: "clone", reference: { voiceId: "voice_fake1" } });
  });

  it("sends the configured consent recording with the voice", async () => {
    await createVoice({ OPENAI_COMPAT_VOICE_CONSENT: "cons_123" });
    expect((await h().fake.requests[0]!.formData()).get("consent")).toBe("cons_123");
  });

  it("asks /v1/audio/speech for WAV in the created voice, with the model and the text", async () => {
    const voice = await createVoice();
    await speak(voice);
    const req = h().fake.requests[1]!;
    expect(`${req.method} ${req.path}`).toBe("POST /v1/audio/speech");
    expect(req.json()).toEqual({
      model: "gpt-4o-mini-tts",
      input: "uno dos tres cuatro",
      voice: { id: "voice_fake1" },
      response_format: "wav",
      speed: 1,
    });
  });

  it("carries a rate as the speed, and the audio is as long as the server made it", async () => {
    const voice = await createVoice();
    const r = await speak(voice, 1.25);
    expect((h().fake.requests[1]!.json() as { speed: number }).speed).toBe(1.25);
    expect(r.durationSec).toBeCloseTo((4 * FAKE_SECONDS_PER_WORD) / 1.25, 2);
  });

  it("fails not retryable when the server no longer has the voice", async () => {
    const voice = await createVoice();
    h().fake.voices.clear();
    await expect(speak(voice)).rejects.toMatchObject({ retryable: false, message: expect.stringContaining("HTTP 400") });
  });
});
