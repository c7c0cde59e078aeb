import { createReadStream } from "node:fs";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { startE2E, type E2E } from "../support/e2e-stack";

/**
 * OpenAI's official npm client, unmodified, pointed at the local stack (`baseURL: <api>/v1`, a
 * project key as its API key): a real recording through the real runner (ffmpeg, PocketSphinx),
 * answered in OpenAI's shapes, and our errors surfacing as the client's APIError with our message.
 */

/** Seven seconds of LibriVox speech (Debian's pocketsphinx-testdata), a WAV as OpenAI's clients send them. */
const SPEECH_WAV = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav";
/** What PocketSphinx hears in it (test-lm.match beside it), as the transcription e2e expects of the same recording. */
const HEARD = /consider how much there might be/;

let e: E2E;
let client: OpenAI;
beforeAll(async () => {
  // The runner shares two cores with other work here: the wait is long enough that the answer is the transcript, not a 202.
  e = await startE2E({ runners: 1, settings: { transcription: { openAiWaitSeconds: 300 } } });
  client = new OpenAI({ baseURL: `${e.stack.apiBaseUrl}/v1`, apiKey: e.tenant.projectKey, maxRetries: 0 });
});
afterAll(async () => e?.close());

describe("the openai client against the local stack", () => {
  it("verbose_json with word timestamps: the transcript, its segments and words, made by an ordinary job", async () => {
    const { data, response } = await client.audio.transcriptions
      .create({
        file: createReadStream(SPEECH_WAV),
        model: "whisper-1",
        response_format: "verbose_json",
        timestamp_granularities: ["word", "segment"],
      })
      .withResponse();
    expect(data.text).toMatch(HEARD);
    expect(data.language).toBe("en");
    expect(data.duration).toBeGreaterThan(6);
    expect(data.segments?.length).toBeGreaterThan(0);
    expect(data.words?.map((w) => w.word).join(" ")).toMatch(HEARD);

    const job = await e.api<Job>("GET", `/v1/jobs/${response.headers.get("x-media-jobs-job-id")}`);
    expect(job).toMatchObject({ serviceType: "transcription", status: "completed", userMetadata: { openai: { model: "whisper-1" } } });
  });

  it("response_format text answers the plain text the client returns as a string", async () => {
    const text = await client.audio.transcriptions.create({
      file: await toFile(createReadStream(SPEECH_WAV), "talk.wav"),
      model: "gpt-4o-transcribe",
      response_format: "text",
    });
    expect(typeof text).toBe("string");
    expect(text).toMatch(HEARD);
  });

  it("a refusal surfaces as the client's APIError with our message and our envelope's code", async () => {
    const err = await client.audio.transcriptions
      .create({ file: await toFile(Buffer.from("not audio"), "notes.txt"), model: "whisper-1" })
      .catch((x: unknown) => x);
    expect(err).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((err as InstanceType<typeof OpenAI.APIError>).message).toMatch(/422 file's name must end in one of flac, mp3/);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe("validationError");
  });
});
