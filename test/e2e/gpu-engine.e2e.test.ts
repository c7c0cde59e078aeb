import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { startE2E, type E2E } from "../support/e2e-stack";
import { FakeOpenAICompatible } from "../support/fakes/openai-compatible";
import { speechVideo } from "../support/media-fixtures";

/**
 * A hosted GPU backend behind the same engine interface, chosen by platform settings: the runner
 * talks to an OpenAI-compatible `/v1/audio/transcriptions` server (here a local fake answering in
 * the documented verbose_json format), and the transcript records that engine and model.
 */
let e: E2E;
let fake: FakeOpenAICompatible;

/** What the GPU server "hears" in every chunk. */
const SPOKEN = {
  language: "en",
  duration: 28.8,
  segments: [
    {
      start: 0.2,
      end: 1.7,
      text: "And Mister John Dashwood",
      avgLogprob: -0.2,
      words: [
        { word: "And", start: 0.2, end: 0.4, probability: 0.9 },
        { word: "Mister", start: 0.4, end: 0.8, probability: 0.9 },
        { word: "John", start: 0.8, end: 1.1, probability: 0.95 },
        { word: "Dashwood", start: 1.1, end: 1.7, probability: 0.8 },
      ],
    },
  ],
};

beforeAll(async () => {
  fake = await FakeOpenAICompatible.start({ apiKey: "sk-gpu-box" });
  fake.transcript = SPOKEN;
  e = await startE2E({
    runners: 1,
    runnerEnv: {
      OPENAI_COMPAT_BASE_URL: fake.url,
      OPENAI_COMPAT_API_KEY: "sk-gpu-box",
      SPEECH_HTTP_BACKOFF_MS: "50",
      SPEECH_HTTP_MAX_BACKOFF_MS: "100",
    },
    settings: { transcription: { speechEngine: "openai-compatible", speechModel: "Systran/faster-whisper-large-v3" } },
  });
});
afterAll(async () => {
  await e?.close();
  await fake?.close();
});

describe("transcription on an OpenAI-compatible GPU server", () => {
  it("the configured network engine transcribes, retrying a transient 503, and the transcript records its engine and model", async () => {
    fake.fail({ status: 503, message: "warming up" });
    await e.s3.putObject(e.tenant.bucket, "gpu/speech.mp4", await readFile(await speechVideo()), "video/mp4");
    const job = await e.api<Job>("POST", "/v1/jobs", {
      serviceType: "transcription",
      input: { sourceType: "s3_direct", connectionId: e.tenant.connectionId, bucket: e.tenant.bucket, sourceKey: "gpu/speech.mp4" },
    });
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 120_000);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");

    const posts = fake.requests.filter((r) => r.path === "/v1/audio/transcriptions");
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect(posts[0]?.headers["authorization"]).toBe("Bearer sk-gpu-box");
    const form = await posts.at(-1)!.formData();
    expect(form.get("model")).toBe("Systran/faster-whisper-large-v3");
    expect(form.get("response_format")).toBe("verbose_json");

    const txt = String((done.resultSummary as { textSourceId: string }).textSourceId);
    const transcript = await e.api<{ engine: string; model: string; language: string; raw: Array<{ text: string }> }>(
      "GET",
      `/v1/transcriptions/${txt}?layers=raw`,
    );
    expect(transcript.engine).toBe("openai-compatible");
    expect(transcript.model).toBe("Systran/faster-whisper-large-v3");
    expect(transcript.language).toBe("en");
    expect(transcript.raw.map((s) => s.text).join(" ")).toMatch(/John Dashwood/);
  });
});
