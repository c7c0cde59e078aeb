import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import { StepFailure } from "../../gpu-runner/handler";
import { createSpeechEngine } from "../../gpu-runner/engines/speech/factory";
import type { SpeechEngine } from "../../gpu-runner/engines/speech/interface";
import { startFakeSpeechServer, type FakeSpeechServer } from "../support/fake-speech-server";
import { rejectionOf } from "../support/rejection";

/** Network engines against a local fake that speaks each documented request/response format. */
let fake: FakeSpeechServer;
let dir: string;
let audio: string;
const AUDIO_BYTES = Buffer.from("ID3-fake-mp3-bytes-for-the-request");

beforeAll(async () => {
  fake = await startFakeSpeechServer();
  dir = await mkdtemp(path.join(os.tmpdir(), "speech-net-"));
  audio = path.join(dir, "chunk-0001.mp3");
  await writeFile(audio, AUDIO_BYTES);
});
afterEach(() => {
  fake.requests.length = 0;
  fake.fallback({ status: 500, json: { error: "no reply scripted" } });
});
afterAll(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

const FAST_RETRY = { SPEECH_HTTP_BACKOFF_MS: "10", SPEECH_HTTP_MAX_BACKOFF_MS: "50", SPEECH_HTTP_ATTEMPTS: "3" };

function engine(kind: (typeof DEFAULT_SETTINGS.transcription)["speechEngine"], env: Record<string, string>, speechModel?: string): SpeechEngine {
  return createSpeechEngine({ ...DEFAULT_SETTINGS.transcription, speechEngine: kind, ...(speechModel ? { speechModel } : {}) }, { ...FAST_RETRY, ...env });
}

const transcribe = (e: SpeechEngine, language?: string) => e.transcribe(audio, { signal: AbortSignal.timeout(20_000), ...(language ? { language } : {}) });

const failureOf = (p: Promise<unknown>) => rejectionOf(p, StepFailure);

describe("openai-compatible engine", () => {
  const VERBOSE_JSON = {
    task: "transcribe",
    language: "english",
    duration: 3.2,
    text: "Hello world.",
    words: [
      { word: " Hello", start: 0.1, end: 0.5, probability: 0.93 },
      { word: " world.", start: 0.6, end: 1.1 },
    ],
    segments: [{ id: 0, seek: 0, start: 0.1, end: 1.1, text: " Hello world.", tokens: [1, 2], temperature: 0, avg_logprob: -0.2, compression_ratio: 1, no_speech_prob: 0.01 }],
  };
  const openai = () => engine("openai-compatible", { OPENAI_COMPAT_BASE_URL: fake.url, OPENAI_COMPAT_API_KEY: "sk-test" }, "Systran/faster-whisper-small");

  it("POSTs multipart to /v1/audio/transcriptions with model, verbose_json, word and segment granularities, language and bearer auth", async () => {
    fake.script({ status: 200, json: VERBOSE_JSON });
    await transcribe(openai(), "en");
    const req = fake.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/audio/transcriptions");
    expect(req.headers.authorization).toBe("Bearer sk-test");
    const form = await req.asRequest().formData();
    expect(form.get("model")).toBe("Systran/faster-whisper-small");
    expect(form.get("response_format")).toBe("verbose_json");
    expect(form.getAll("timestamp_granularities[]")).toEqual(["word", "segment"]);
    expect(form.get("language")).toBe("en");
    const file = form.get("file") as File;
    expect(file.name).toBe("chunk-0001.mp3");
    expect(Buffer.from(await file.arrayBuffer())).toEqual(AUDIO_BYTES);
  });

  it("parses verbose_json: language name to code, trimmed words with probabilities, segments, duration", async () => {
    fake.script({ status: 200, json: VERBOSE_JSON });
    const r = await transcribe(openai());
    expect(r.language).toBe("en");
    expect(r.durationSec).toBe(3.2);
    expect(r.words).toEqual([
      { word: "Hello", start: 0.1, end: 0.5, confidence: 0.93 },
      { word: "world.", start: 0.6, end: 1.1 },
    ]);
    expect(r.segments).toEqual([{ start: 0.1, end: 1.1, text: "Hello world." }]);
  });

  it("omits the language field when no hint is given, so the server detects it", async () => {
    fake.script({ status: 200, json: VERBOSE_JSON });
    await transcribe(openai());
    expect((await fake.requests[0]!.asRequest().formData()).has("language")).toBe(false);
  });

  it("retries a 429 and succeeds on the next answer", async () => {
    fake.script({ status: 429, json: { error: "slow down" }, headers: { "retry-after": "0" } }, { status: 200, json: VERBOSE_JSON });
    const r = await transcribe(openai());
    expect(r.words).toHaveLength(2);
    expect(fake.requests).toHaveLength(2);
  });

  it("retries a transient 500 and succeeds on the next answer, resending the whole file", async () => {
    fake.script({ status: 500, text: "boom" }, { status: 200, json: VERBOSE_JSON });
    await transcribe(openai());
    expect(fake.requests).toHaveLength(2);
    const file = (await fake.requests[1]!.asRequest().formData()).get("file") as File;
    expect(file.size).toBe(AUDIO_BYTES.length);
  });

  it("gives up after the configured attempts with a retryable failure", async () => {
    fake.fallback({ status: 503, text: "unavailable" });
    const f = await failureOf(transcribe(openai()));
    expect(f).toMatchObject({ code: "processing_failed", retryable: true });
    expect(f.message).toContain("after 3 attempts");
    expect(fake.requests).toHaveLength(3);
  });

  it("fails at once, not retryable, when the server rejects the request (401)", async () => {
    fake.script({ status: 401, json: { error: "bad key" } });
    const f = await failureOf(transcribe(openai()));
    expect(f.retryable).toBe(false);
    expect(fake.requests).toHaveLength(1);
  });

  it("times out a hung attempt and retries it", async () => {
    const e = engine("openai-compatible", { OPENAI_COMPAT_BASE_URL: fake.url, SPEECH_HTTP_TIMEOUT_MS: "200" });
    fake.script({ status: 200, json: VERBOSE_JSON, delayMs: 1_000 }, { status: 200, json: VERBOSE_JSON });
    const r = await transcribe(e);
    expect(r.words).toHaveLength(2);
    expect(fake.requests).toHaveLength(2);
  });
});

describe("workers-ai engine", () => {
  const RESULT = {
    success: true,
    errors: [],
    messages: [],
    result: {
      text: "Hello world.",
      word_count: 2,
      transcription_info: { language: "en", language_probability: 0.98, duration: 3.2, duration_after_vad: 3 },
      segments: [{ start: 0.1, end: 1.1, text: "Hello world.", temperature: 0, avg_logprob: -0.2, compression_ratio: 1, no_speech_prob: 0.01, words: [{ word: "Hello", start: 0.1, end: 0.5 }, { word: "world.", start: 0.6, end: 1.1 }] }],
      vtt: "WEBVTT\n\n",
    },
  };
  const workers = () => engine("workers-ai", { WORKERS_AI_BASE_URL: `${fake.url}/client/v4`, CLOUDFLARE_ACCOUNT_ID: "acc123", CLOUDFLARE_API_TOKEN: "cf-token" });

  it("POSTs base64 audio as JSON to accounts/{account}/ai/run/@cf/openai/whisper-large-v3-turbo with the API token", async () => {
    fake.script({ status: 200, json: RESULT });
    await transcribe(workers(), "en");
    const req = fake.requests[0]!;
    expect(req.path).toBe("/client/v4/accounts/acc123/ai/run/@cf/openai/whisper-large-v3-turbo");
    expect(req.headers.authorization).toBe("Bearer cf-token");
    expect(JSON.parse(req.body.toString())).toEqual({ audio: AUDIO_BYTES.toString("base64"), language: "en" });
  });

  it("parses result.transcription_info.language and the words of result.segments", async () => {
    fake.script({ status: 200, json: RESULT });
    const r = await transcribe(workers());
    expect(r).toMatchObject({ language: "en", durationSec: 3.2 });
    expect(r.words.map((w) => w.word)).toEqual(["Hello", "world."]);
    expect(r.segments).toHaveLength(1);
  });

  it("retries a transient 500 and succeeds on the next answer", async () => {
    fake.script({ status: 500, json: { success: false, errors: [{ message: "internal" }] } }, { status: 200, json: RESULT });
    const r = await transcribe(workers());
    expect(r.words).toHaveLength(2);
    expect(fake.requests).toHaveLength(2);
  });

  it("fails clearly when the engine is not configured on the runner", () => {
    expect(() => engine("workers-ai", {})).toThrow(/CLOUDFLARE_ACCOUNT_ID is not set/);
  });
});

describe("replicate engine", () => {
  const VERSION = "openai/whisper:8099696689d249cf8b122d833c36ac3f75505c666a395ca40ef26f68e7d3d16e";
  const OUTPUT = {
    detected_language: "english",
    transcription: "Hello world. Bye.",
    segments: [
      { id: 0, seek: 0, start: 0, end: 2, text: " Hello world.", tokens: [], temperature: 0, avg_logprob: -0.1, compression_ratio: 1, no_speech_prob: 0 },
      { id: 1, seek: 0, start: 2.5, end: 3, text: " Bye.", tokens: [], temperature: 0, avg_logprob: -0.3, compression_ratio: 1, no_speech_prob: 0 },
    ],
    translation: null,
    txt_file: "https://example.invalid/x.txt",
    srt_file: "https://example.invalid/x.srt",
  };
  const prediction = (status: string) => ({ id: "p1", version: VERSION.split(":")[1], status, input: {}, output: status === "succeeded" ? OUTPUT : null, error: null, logs: "", urls: {} });
  const replicate = () => engine("replicate", { REPLICATE_API_TOKEN: "r8-token", REPLICATE_BASE_URL: `${fake.url}/v1` });

  it("creates a prediction for the whisper version with the audio inline and the token", async () => {
    fake.script({ status: 201, json: prediction("succeeded") });
    await transcribe(replicate(), "en");
    const req = fake.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/predictions");
    expect(req.headers.authorization).toBe("Bearer r8-token");
    const body = JSON.parse(req.body.toString()) as { version: string; input: Record<string, unknown> };
    expect(body.version).toBe(VERSION.split(":")[1]);
    expect(body.input).toMatchObject({ model: "large-v3", language: "en", audio: `data:audio/mpeg;base64,${AUDIO_BYTES.toString("base64")}` });
  });

  it("parses detected_language and segments, spreading segment time over its words", async () => {
    fake.script({ status: 201, json: prediction("succeeded") });
    const r = await transcribe(replicate());
    expect(r.language).toBe("en");
    expect(r.words.map((w) => w.word)).toEqual(["Hello", "world.", "Bye."]);
    expect(r.words[0]!.start).toBe(0);
    expect(r.words[1]!.end).toBeCloseTo(2);
    expect(r.words[0]!.confidence).toBeCloseTo(Math.exp(-0.1));
  });

  it("polls a prediction that is still running until it succeeds", async () => {
    fake.script({ status: 201, json: prediction("starting") }, { status: 200, json: prediction("processing") }, { status: 200, json: prediction("succeeded") });
    const r = await transcribe(replicate());
    expect(r.words).toHaveLength(3);
    expect(fake.requests.slice(1).every((q) => q.method === "GET" && q.path === "/v1/predictions/p1")).toBe(true);
  });

  it("retries a transient 500 on create and succeeds on the next answer", async () => {
    fake.script({ status: 500, json: { detail: "internal" } }, { status: 201, json: prediction("succeeded") });
    const r = await transcribe(replicate());
    expect(r.words).toHaveLength(3);
    expect(fake.requests.filter((q) => q.method === "POST")).toHaveLength(2);
  });
});
