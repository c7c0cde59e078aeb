import { beforeAll, describe, expect, it } from "vitest";
import { call } from "./helpers/api";
import { createTenant, type Tenant } from "./helpers/tenant";
import { fakeRunner, getJob, submitTranscription } from "./helpers/jobs";
import { completedTranscript, TRANSCRIPTION_HANDLER, transcriptionResult } from "./helpers/transcripts";
import { TRANSCRIPT_LAYER_MAX_BYTES } from "../../worker/transcripts/store";

let t: Tenant;
beforeAll(async () => {
  t = await createTenant();
});

type TranscriptBody = {
  revision: number;
  segments: Array<{ id: number; text: string }>;
  glossary: Array<{ text: string }>;
  raw: Array<{ text: string }>;
  engine: string;
  model: string;
};
const getTranscript = (id: string, key = t.projectKey) => call<TranscriptBody>("GET", `/v1/transcriptions/${id}`, { key });
const patchSegments = (id: string, body: unknown) =>
  call<{ revision: number }>("PATCH", `/v1/transcriptions/${id}/segments`, { key: t.projectKey, body });

describe("transcripts", () => {
  it("a completed transcript has raw, glossary and current layers, the engine and model, at revision 1", async () => {
    const { textSourceId } = await completedTranscript(t, 3);
    const res = await getTranscript(textSourceId);
    expect(res.status).toBe(200);
    expect(res.body.data.revision).toBe(1);
    expect(res.body.data.engine).toBe("test-engine");
    expect(res.body.data.model).toBe("test-model");
    expect(res.body.data.raw).toHaveLength(3);
    expect(res.body.data.glossary).toHaveLength(3);
    expect(res.body.data.segments).toHaveLength(3);
  });

  it("a segment edit with the current revision applies and bumps the revision", async () => {
    const { textSourceId } = await completedTranscript(t, 2);
    const res = await patchSegments(textSourceId, { revision: 1, segments: [{ id: 1, text: "edited words" }] });
    expect(res.status).toBe(200);
    expect(res.body.data.revision).toBe(2);
    const after = await getTranscript(textSourceId);
    expect(after.body.data.segments[1]?.text).toBe("edited words");
    expect(after.body.data.raw[1]?.text).toBe("segment number 1");
  });

  it("a segment edit with a stale revision is 409 conflict and changes nothing", async () => {
    const { textSourceId } = await completedTranscript(t, 2);
    await patchSegments(textSourceId, { revision: 1, segments: [{ id: 0, text: "first edit" }] });
    const stale = await patchSegments(textSourceId, { revision: 1, segments: [{ id: 0, text: "lost edit" }] });
    expect(stale.status).toBe(409);
    expect(stale.body.error?.code).toBe("conflict");
    const after = await getTranscript(textSourceId);
    expect(after.body.data.segments[0]?.text).toBe("first edit");
    expect(after.body.data.revision).toBe(2);
  });

  it("two edits racing from the same revision: exactly one lands, whole, and the other is 409", async () => {
    const { textSourceId } = await completedTranscript(t, 2);
    const [a, b] = await Promise.all([
      patchSegments(textSourceId, {
        revision: 1,
        segments: [
          { id: 0, text: "edit A" },
          { id: 1, text: "edit A" },
        ],
      }),
      patchSegments(textSourceId, {
        revision: 1,
        segments: [
          { id: 0, text: "edit B" },
          { id: 1, text: "edit B" },
        ],
      }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? "edit A" : "edit B";
    const after = await getTranscript(textSourceId);
    expect(after.body.data.revision).toBe(2);
    expect(after.body.data.segments.map((s) => s.text)).toEqual([winner, winner]);
  });

  it("an edit of a segment id that does not exist is 422 and changes nothing", async () => {
    const { textSourceId } = await completedTranscript(t, 1);
    const res = await patchSegments(textSourceId, { revision: 1, segments: [{ id: 7, text: "x" }] });
    expect(res.status).toBe(422);
    expect(res.body.error?.details).toEqual([{ path: "segments.0.id", issue: "notFound:7" }]);
    expect((await getTranscript(textSourceId)).body.data.revision).toBe(1);
  });

  it("another project's transcript is 404", async () => {
    const { textSourceId } = await completedTranscript(t, 1);
    const other = await createTenant({ withConnection: false });
    const res = await getTranscript(textSourceId, other.projectKey);
    expect(res.status).toBe(404);
    expect(res.body.error?.message).toBe(`transcription not found: ${textSourceId}`);
  });
});

describe("transcript size limit", () => {
  it("a transcript whose layer exceeds the documented limit fails the job with transcript_too_large, without retries", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId, TRANSCRIPTION_HANDLER);
    const result = transcriptionResult(job, 1);
    result.segments[0]!.text = "x".repeat(TRANSCRIPT_LAYER_MAX_BYTES + 1);
    await fakeRunner.complete(task, result as unknown as Record<string, unknown>);
    const failed = await getJob(t, job.jobId);
    expect(failed.status).toBe("failed");
    expect(failed.error?.code).toBe("transcript_too_large");
    expect(failed.error?.message).toMatch(/limit is 8388608 bytes per layer/);
    expect(failed.attemptCount).toBe(0);
    const transcript = await getTranscript(String(job.input["textSourceId"]));
    expect(transcript.body.data).toMatchObject({ status: "failed" });
  });
});

describe("glossary", () => {
  it("adding a term rebuilds the glossary layer from raw with the preferred spelling", async () => {
    const g = await createTenant();
    const { textSourceId } = await completedTranscript(g, 2);
    const add = await call<{ termId: string }>("POST", "/v1/glossary", {
      key: g.projectKey,
      body: { term: "segment number", preferred: "Segment No." },
    });
    expect(add.status).toBe(201);
    const res = await getTranscript(textSourceId, g.projectKey);
    expect(res.body.data.glossary.map((s) => s.text)).toEqual(["Segment No. 0", "Segment No. 1"]);
    expect(res.body.data.raw[0]?.text).toBe("segment number 0");
  });

  it("removing a term rebuilds the layer without it", async () => {
    const g = await createTenant();
    const { textSourceId } = await completedTranscript(g, 1);
    const add = await call<{ termId: string }>("POST", "/v1/glossary", { key: g.projectKey, body: { term: "number", preferred: "No." } });
    await call("DELETE", `/v1/glossary/${add.body.data.termId}`, { key: g.projectKey });
    const res = await getTranscript(textSourceId, g.projectKey);
    expect(res.body.data.glossary[0]?.text).toBe("segment number 0");
  });

  it("new transcripts get the project glossary applied to their glossary and current layers", async () => {
    const g = await createTenant();
    await call("POST", "/v1/glossary", { key: g.projectKey, body: { term: "segment", preferred: "Segment" } });
    const { textSourceId } = await completedTranscript(g, 1);
    const res = await getTranscript(textSourceId, g.projectKey);
    expect(res.body.data.glossary[0]?.text).toBe("Segment number 0");
    expect(res.body.data.segments[0]?.text).toBe("Segment number 0");
  });

  it("a duplicate term is 409 conflict", async () => {
    const g = await createTenant({ withConnection: false });
    await call("POST", "/v1/glossary", { key: g.projectKey, body: { term: "acme", preferred: "ACME" } });
    const dup = await call("POST", "/v1/glossary", { key: g.projectKey, body: { term: "acme", preferred: "Acme" } });
    expect(dup.status).toBe(409);
  });
});
