import { AwsClient } from "aws4fetch";
import { exports } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import type { Job } from "../../contracts/job";
import { OPENAI_FILE_MAX_BYTES } from "../../contracts/openai-transcription-request";
import type { TranscriptionResult } from "../../contracts/transcript";
import { call, expectError, type ApiResponse } from "./helpers/api";
import { cancelUnfinished, fakeRunner, getJob, patchSettings } from "./helpers/jobs";
import { testS3 } from "./helpers/s3";
import { createConnection, createTenant, unique, type Tenant } from "./helpers/tenant";
import { TRANSCRIPTION_HANDLER, transcriptionResult } from "./helpers/transcripts";

/**
 * `POST /v1/audio/transcriptions` (the OpenAI-compatible endpoint) in the Worker: the upload kept in
 * the project's storage, an ordinary transcription job made of it, the wait, and the answer in each
 * case. The test plays the runner; the real engines run in test/e2e/openai-transcriptions.e2e.test.ts.
 */

let t: Tenant;
beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
});
afterEach(async () => {
  await cancelUnfinished(t);
  await patchSettings({ transcription: { openAiWaitSeconds: 60 } });
});

const AUDIO = new TextEncoder().encode("RIFF....WAVEfmt pretend audio bytes");

interface Sent {
  status: number;
  headers: Headers;
  text: string;
}

/** Posts a multipart form as OpenAI's client does: `file` plus text fields (a list field repeats as `name[]`). */
async function transcribe(fields: Record<string, string | string[]>, opts: { key?: string; file?: File | null } = {}): Promise<Sent> {
  const form = new FormData();
  if (opts.file !== null) form.append("file", opts.file ?? new File([AUDIO], "talk.wav", { type: "audio/wav" }));
  for (const [name, value] of Object.entries(fields))
    for (const v of [value].flat()) form.append(Array.isArray(value) ? `${name}[]` : name, v);
  const res = await exports.default.fetch(
    new Request("http://media-jobs.test/v1/audio/transcriptions", {
      method: "POST",
      headers: { authorization: `Bearer ${opts.key ?? t.projectKey}` },
      body: form,
    }),
  );
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The keys the test bucket holds under `prefix` (the local S3 server's ListObjectsV2). */
async function keysUnder(prefix: string): Promise<string[]> {
  const s3 = inject("s3");
  const signer = new AwsClient({ accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, region: s3.region, service: "s3" });
  const res = await signer.fetch(`${s3.endpoint}/${t.bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`);
  if (!res.ok) throw new Error(`listing ${prefix}: ${res.status} ${await res.text()}`);
  return [...(await res.text()).matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1] as string);
}

const envelope = (sent: Sent) => ({ status: sent.status, headers: sent.headers, body: JSON.parse(sent.text) }) as ApiResponse<Job>;

/** Plays the runner for the next transcription task: completes it with `result`, or fails it with `failure`. */
async function runNextTask(outcome: { result: (job: Job) => TranscriptionResult } | { failure: string }): Promise<void> {
  const task = await fakeRunner.leaseWhenReady(undefined, TRANSCRIPTION_HANDLER);
  if ("failure" in outcome) {
    await fakeRunner.fail(task, outcome.failure, false, "source has no audio stream to transcribe");
    return;
  }
  const job = await getJob(t, task.jobId);
  await fakeRunner.complete(task, outcome.result(job) as unknown as Record<string, unknown>);
}

/** Two segments with word timings, as the local engine reports them. */
function withWords(job: Job): TranscriptionResult {
  const base = transcriptionResult(job, ["hello there", "general kenobi"]);
  return {
    ...base,
    segments: base.segments.map((s) => {
      const [a, b] = s.text.split(" ") as [string, string];
      return {
        ...s,
        confidence: 0.5,
        words: [
          { word: a, start: s.start, end: s.start + 1 },
          { word: b, start: s.start + 1, end: s.end },
        ],
      };
    }),
  };
}

describe("a job that ends within the wait", () => {
  it("answers verbose_json with OpenAI's fields, segments and words, and the job is an ordinary transcription job", async () => {
    const [sent] = await Promise.all([
      transcribe({ model: "whisper-1", response_format: "verbose_json", timestamp_granularities: ["word", "segment"] }),
      runNextTask({ result: withWords }),
    ]);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.headers.get("content-type")).toMatch(/^application\/json/);
    const body = JSON.parse(sent.text);
    expect(body).toMatchObject({ task: "transcribe", language: "en", duration: 4, text: "hello there general kenobi" });
    expect(body.usage).toEqual({ type: "duration", seconds: 4 });
    expect(body.segments[1]).toEqual({
      id: 1,
      seek: 200,
      start: 2,
      end: 4,
      text: "general kenobi",
      tokens: [],
      temperature: 0,
      avg_logprob: -0.693,
      compression_ratio: 0,
      no_speech_prob: 0,
    });
    expect(body.words).toEqual([
      { word: "hello", start: 0, end: 1 },
      { word: "there", start: 1, end: 2 },
      { word: "general", start: 2, end: 3 },
      { word: "kenobi", start: 3, end: 4 },
    ]);

    const job = await getJob(t, sent.headers.get("x-media-jobs-job-id") ?? "");
    expect(job).toMatchObject({ serviceType: "transcription", status: "completed", userMetadata: { openai: { model: "whisper-1" } } });
    expect(job.input).toMatchObject({ sourceType: "s3_direct", connectionId: t.connectionId, bucket: t.bucket });
    const sourceKey = String(job.input["sourceKey"]);
    expect(sourceKey).toMatch(/\/uploads\/[0-9a-z]{20}\/talk\.wav$/);
    const stored = await testS3().getObject(t.bucket, sourceKey);
    expect(new Uint8Array(await stored.arrayBuffer())).toEqual(AUDIO);
  });

  it("answers text formats as text/plain: srt cues from the transcript", async () => {
    const [sent] = await Promise.all([
      transcribe({ model: "gpt-4o-transcribe", response_format: "srt" }),
      runNextTask({ result: withWords }),
    ]);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(sent.text).toMatch(/^1\n00:00:00,000 --> 00:00:0\d,\d{3}\nhello there/);
  });

  it("a job that fails answers 422 jobFailed with the job's own error code and id", async () => {
    const [sent] = await Promise.all([transcribe({ model: "whisper-1" }), runNextTask({ failure: "unsupported_media" })]);
    const res = envelope(sent);
    expectError(res, 422, "jobFailed");
    expect(res.body.error?.details).toEqual([{ path: "file", issue: "unsupported_media" }]);
    expect(res.body.metadata["jobId"]).toBe(sent.headers.get("x-media-jobs-job-id"));
  });
});

describe("a job that outlasts the wait", () => {
  it("answers 202 with the job and its Location, the prompt and keywords as its vocabulary", async () => {
    await patchSettings({ transcription: { openAiWaitSeconds: 0 } });
    const sent = await transcribe({ model: "my-own-model", language: "en", prompt: "Okonkwo, Kubernetes. TikTok", keywords: ["Zyx"] });
    const res = envelope(sent);
    expect(res.status, sent.text).toBe(202);
    expect(res.headers.get("location")).toBe(`/v1/jobs/${res.body.data.jobId}`);
    expect(res.body.data.input["options"]).toMatchObject({ language: "en", vocabulary: ["Zyx", "Okonkwo", "Kubernetes", "TikTok"] });
    expect(res.body.data.userMetadata).toEqual({ openai: { model: "my-own-model", responseFormat: "json" } });
    const listed = await call<Job[]>("GET", "/v1/jobs?serviceTypes=transcription&limit=5", { key: t.projectKey });
    expect(listed.body.data.map((j) => j.jobId)).toContain(res.body.data.jobId);
  });
});

describe("where the upload is kept", () => {
  it("a client's file name never becomes a path: only its last segment, made safe, under the upload's own folder", async () => {
    await patchSettings({ transcription: { openAiWaitSeconds: 0 } });
    const file = new File([AUDIO], "../../other-prefix/<script> talk.WAV");
    const res = envelope(await transcribe({ model: "whisper-1" }, { file }));
    expect(res.status).toBe(202);
    const sourceKey = String(res.body.data.input["sourceKey"]);
    expect(sourceKey).toMatch(/^[^.]*\/uploads\/[0-9a-z]{20}\/script_talk\.wav$/);
    expect(await keysUnder(sourceKey)).toEqual([sourceKey]);
  });

  it("an upload no job was made of is removed again: a language the platform does not support", async () => {
    const own = await createTenant({ plan: "enterprise", withConnection: false });
    const prefix = unique("openai-refused");
    await createConnection(own.projectKey, { defaultOutputPrefix: prefix });
    const res = envelope(await transcribe({ model: "whisper-1", language: "fr" }, { key: own.projectKey }));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.options.language", issue: "unsupportedLanguage" }]);
    expect(await keysUnder(`${prefix}/uploads/`)).toEqual([]);
  });
});

describe("refusals, before any job is made", () => {
  it("a body whose Content-Length is over the limit is 413 before it is read", async () => {
    const res = await exports.default.fetch(
      new Request("http://media-jobs.test/v1/audio/transcriptions", {
        method: "POST",
        headers: {
          authorization: `Bearer ${t.projectKey}`,
          "content-type": "multipart/form-data; boundary=x",
          "content-length": "999999999",
        },
        body: "--x--",
      }),
    );
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("payloadTooLarge");
  });

  it("a file one byte over 25 MiB is 413 payloadTooLarge", async () => {
    const big = new File([new Uint8Array(OPENAI_FILE_MAX_BYTES + 1)], "big.mp3");
    const res = envelope(await transcribe({ model: "whisper-1" }, { file: big }));
    expectError(res, 413, "payloadTooLarge");
    expect(res.body.error?.details).toEqual([{ path: "file", issue: "tooBig" }]);
  });

  it.each([
    ["a field OpenAI's API does not have", { model: "whisper-1", speakers: "2" }, "speakers", "notAllowed"],
    ["no model", {}, "model", "required"],
    ["a response_format not offered", { model: "whisper-1", response_format: "diarized_json" }, "response_format", "invalidValue"],
    ["streaming", { model: "whisper-1", stream: "true" }, "stream", "unsupported"],
  ])("%s is 422", async (_, fields, path, issue) => {
    const res = envelope(await transcribe(fields));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path, issue }]);
  });

  it("a file whose name has no audio or video extension is 422 unsupportedExtension", async () => {
    const res = envelope(await transcribe({ model: "whisper-1" }, { file: new File([AUDIO], "notes.txt") }));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "file", issue: "unsupportedExtension" }]);
  });

  it("a body that is not multipart is 415", async () => {
    const res = await call("POST", "/v1/audio/transcriptions", { key: t.projectKey, body: { model: "whisper-1" } });
    expectError(res, 415, "unsupportedMediaType");
  });

  it("a project without a storage connection is 422 noStorageConnection, and no job is made", async () => {
    const bare = await createTenant({ plan: "enterprise", withConnection: false });
    const res = envelope(await transcribe({ model: "whisper-1" }, { key: bare.projectKey }));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "file", issue: "noStorageConnection" }]);
    expect((await call<Job[]>("GET", "/v1/jobs", { key: bare.projectKey })).body.data).toEqual([]);
  });
});
