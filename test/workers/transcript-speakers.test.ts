import { beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import type { Segment, Speaker } from "../../contracts/transcript";
import { call } from "./helpers/api";
import { createTenant, unique, type Tenant } from "./helpers/tenant";
import { cancelUnfinished, fakeRunner, patchSettings, submitTranscription, transcriptionBody } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { completedTranscript, diarizedTranscript, TRANSCRIPTION_HANDLER, transcriptionResult } from "./helpers/transcripts";
import { createJob, runRunnerStep, summaryDraft } from "./helpers/understanding";

let t: Tenant;
beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
});

interface TranscriptBody {
  revision: number;
  speakers: Speaker[];
  diarization: { engine: string; model: string } | null;
  segments: Segment[];
}
const read = async (id: string) => (await call<TranscriptBody>("GET", `/v1/transcriptions/${id}`, { key: t.projectKey })).body.data;
const patchSpeakers = (id: string, body: unknown, key = t.projectKey) =>
  call<{ revision: number; speakers: Speaker[] }>("PATCH", `/v1/transcriptions/${id}/speakers`, { key, body });
const patchSegments = (id: string, body: unknown) =>
  call<{ revision: number }>("PATCH", `/v1/transcriptions/${id}/segments`, { key: t.projectKey, body });
const labelsOf = (b: TranscriptBody) => b.segments.map((s) => s.speaker);

describe("a diarized transcript", () => {
  it("reads with its speakers in order of first appearance, their speaking time and segments, and what diarized it", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00", "SPEAKER_01", "SPEAKER_00"]);
    const b = await read(textSourceId);
    expect(b.speakers).toEqual([
      { label: "SPEAKER_00", name: null, speakingSec: 4, segmentCount: 2 },
      { label: "SPEAKER_01", name: null, speakingSec: 2, segmentCount: 1 },
    ]);
    expect(b.diarization).toEqual({ engine: "local-mfcc", model: "test-diarizer" });
    expect(labelsOf(b)).toEqual(["SPEAKER_00", "SPEAKER_01", "SPEAKER_00"]);
  });

  it("keeps the speaker list the segments make, whatever list the runner reported", async () => {
    const job = await submitTranscription(t);
    const base = transcriptionResult(job, 1);
    const result = {
      ...base,
      segments: [{ ...base.segments[0]!, speaker: "SPEAKER_00" }],
      speakers: [{ label: "SPEAKER_07", name: "Injected", speakingSec: 99, segmentCount: 9 }],
    };
    const task = await fakeRunner.leaseWhenReady(job.jobId, TRANSCRIPTION_HANDLER);
    expect((await fakeRunner.complete(task, result)).status).toBe(200);
    const b = await read(String(job.input["textSourceId"]));
    expect(b.speakers).toEqual([{ label: "SPEAKER_00", name: null, speakingSec: 2, segmentCount: 1 }]);
  });

  it("reads with the speech engine's confidence in the language it detected, null when it gave none", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId, TRANSCRIPTION_HANDLER);
    expect((await fakeRunner.complete(task, { ...transcriptionResult(job, 1), languageConfidence: 0.93 })).status).toBe(200);
    const read = async (id: string) =>
      (await call<{ languageConfidence: number | null }>("GET", `/v1/transcriptions/${id}`, { key: t.projectKey })).body.data;
    expect((await read(String(job.input["textSourceId"]))).languageConfidence).toBe(0.93);
    expect((await read((await completedTranscript(t, 1)).textSourceId)).languageConfidence).toBeNull();
  });

  it("a transcript that was not diarized has no speakers and no diarization", async () => {
    const { textSourceId } = await completedTranscript(t, 2);
    const b = await read(textSourceId);
    expect({ speakers: b.speakers, diarization: b.diarization }).toEqual({ speakers: [], diarization: null });
  });
});

describe("speakers in what is made from a transcript", () => {
  it("a runner step reads the transcript's speakers with the names given since, and each segment's speaker", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00", "SPEAKER_01"]);
    await patchSpeakers(textSourceId, { revision: 1, names: { SPEAKER_01: "Ada" } });
    const job = await createJob(t, "summarization", { textSourceJobId: textSourceId });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["summarization"]);
    const doc = (await fakeRunner.transcript(task, textSourceId)).body.data;
    expect(doc.speakers.map((s) => [s.label, s.name])).toEqual([
      ["SPEAKER_00", null],
      ["SPEAKER_01", "Ada"],
    ]);
    expect(doc.segments.map((s) => s.speaker)).toEqual(["SPEAKER_00", "SPEAKER_01"]);
    await cancelUnfinished(t);
  });

  it("a summary keeps the speakers its runner read, names included", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00"]);
    const job = await createJob(t, "summarization", { textSourceJobId: textSourceId });
    const speakers = [{ label: "SPEAKER_00", name: "Ada", speakingSec: 2, segmentCount: 1 }];
    await runRunnerStep(t, job, "summarization", async () => summaryDraft({ speakers }));
    const res = await call<{ speakers: Speaker[] }>("GET", `/v1/summarizations/${String(job.input["summarizationId"])}`, {
      key: t.projectKey,
    });
    expect(res.body.data.speakers).toEqual(speakers);
  });
});

describe("naming speakers", () => {
  it("a rename bumps the revision and the name shows in reads; the segments keep their labels", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00", "SPEAKER_01"]);
    const res = await patchSpeakers(textSourceId, { revision: 1, names: { SPEAKER_01: "Ada Lovelace" } });
    expect(res.status).toBe(200);
    expect(res.body.data.revision).toBe(2);
    const b = await read(textSourceId);
    expect(b.speakers.map((s) => [s.label, s.name])).toEqual([
      ["SPEAKER_00", null],
      ["SPEAKER_01", "Ada Lovelace"],
    ]);
    expect(labelsOf(b)).toEqual(["SPEAKER_00", "SPEAKER_01"]);
  });

  it("a null name clears the name", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00"]);
    await patchSpeakers(textSourceId, { revision: 1, names: { SPEAKER_00: "Ada" } });
    await patchSpeakers(textSourceId, { revision: 2, names: { SPEAKER_00: null } });
    expect((await read(textSourceId)).speakers[0]!.name).toBeNull();
  });

  it("a rename from a stale revision is 409 and changes nothing", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00"]);
    await patchSegments(textSourceId, { revision: 1, segments: [{ id: 0, text: "edited" }] });
    const stale = await patchSpeakers(textSourceId, { revision: 1, names: { SPEAKER_00: "Ada" } });
    expect(stale.status).toBe(409);
    expect((await read(textSourceId)).speakers[0]!.name).toBeNull();
  });

  it("a rename and a segment edit from the same revision: exactly one lands", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00", "SPEAKER_01"]);
    const [rename, edit] = await Promise.all([
      patchSpeakers(textSourceId, { revision: 1, names: { SPEAKER_00: "Ada" } }),
      patchSegments(textSourceId, { revision: 1, segments: [{ id: 0, text: "edited" }] }),
    ]);
    expect([rename.status, edit.status].sort()).toEqual([200, 409]);
    expect((await read(textSourceId)).revision).toBe(2);
  });

  it("a name for a label the transcript does not have is 422", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00"]);
    const res = await patchSpeakers(textSourceId, { revision: 1, names: { SPEAKER_05: "Nobody" } });
    expect(res.status).toBe(422);
    expect(res.body.error?.details?.[0]).toMatchObject({ path: "names.SPEAKER_05", issue: "unknownSpeaker:SPEAKER_05" });
  });

  it("a name of more than one line, or a key that is not a label, is 422", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00"]);
    expect((await patchSpeakers(textSourceId, { revision: 1, names: { SPEAKER_00: "Ada\nLovelace" } })).status).toBe(422);
    expect((await patchSpeakers(textSourceId, { revision: 1, names: { "<script>": "x" } })).status).toBe(422);
    expect((await read(textSourceId)).revision).toBe(1);
  });

  it("another project's transcript is 404", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00"]);
    const other = await createTenant();
    expect((await patchSpeakers(textSourceId, { revision: 1, names: { SPEAKER_00: "Eve" } }, other.projectKey)).status).toBe(404);
  });
});

describe("merging speakers and reassigning segments", () => {
  it("a merge moves the merged label's segments and words to the other, and the list adds up its time", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00", "SPEAKER_01", "SPEAKER_02", "SPEAKER_01"]);
    await patchSpeakers(textSourceId, { revision: 1, names: { SPEAKER_00: "Ada" } });
    const res = await patchSpeakers(textSourceId, { revision: 2, merge: [{ from: "SPEAKER_02", into: "SPEAKER_00" }] });
    expect(res.status).toBe(200);
    const b = await read(textSourceId);
    expect(labelsOf(b)).toEqual(["SPEAKER_00", "SPEAKER_01", "SPEAKER_00", "SPEAKER_01"]);
    expect(b.segments[2]!.words!.every((w) => w.speaker === "SPEAKER_00")).toBe(true);
    expect(b.speakers).toEqual([
      { label: "SPEAKER_00", name: "Ada", speakingSec: 4, segmentCount: 2 },
      { label: "SPEAKER_01", name: null, speakingSec: 4, segmentCount: 2 },
    ]);
  });

  it("a merge into a label the same edit merges away is 422", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00", "SPEAKER_01", "SPEAKER_02"]);
    const res = await patchSpeakers(textSourceId, {
      revision: 1,
      merge: [
        { from: "SPEAKER_00", into: "SPEAKER_01" },
        { from: "SPEAKER_01", into: "SPEAKER_02" },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.error?.details?.[0]).toMatchObject({ path: "merge.0.into", issue: "mergedAway" });
  });

  it("a segment edit that names a speaker moves the segment and its words, and keeps the names", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00", "SPEAKER_01", "SPEAKER_00"]);
    await patchSpeakers(textSourceId, { revision: 1, names: { SPEAKER_01: "Ada" } });
    const res = await patchSegments(textSourceId, { revision: 2, segments: [{ id: 2, speaker: "SPEAKER_01" }] });
    expect(res.status).toBe(200);
    const b = await read(textSourceId);
    expect(labelsOf(b)).toEqual(["SPEAKER_00", "SPEAKER_01", "SPEAKER_01"]);
    expect(b.segments[2]!.words!.map((w) => w.speaker)).toEqual(["SPEAKER_01", "SPEAKER_01"]);
    expect(b.speakers.map((s) => [s.label, s.name, s.segmentCount])).toEqual([
      ["SPEAKER_00", null, 1],
      ["SPEAKER_01", "Ada", 2],
    ]);
  });
});

describe("transcription options for speakers, vocabulary and languages", () => {
  const create = async (options: Record<string, unknown>) => {
    const body = transcriptionBody(t, await putSource(`${unique("src")}/clip.mp4`));
    return call<Job>("POST", "/v1/jobs", { key: t.projectKey, body: { ...body, input: { ...body.input, options } } });
  };

  it("diarization is on by default and stored with its bounds", async () => {
    const res = await create({ diarization: { minSpeakers: 2, maxSpeakers: 3 } });
    expect(res.status).toBe(201);
    expect(res.body.data.input["options"]).toMatchObject({ diarization: { enabled: true, minSpeakers: 2, maxSpeakers: 3 } });
    await cancelUnfinished(t);
  });

  it("minSpeakers above maxSpeakers is 422", async () => {
    const res = await create({ diarization: { minSpeakers: 4, maxSpeakers: 2 } });
    expect(res.status).toBe(422);
  });

  it("asking for diarization on a platform without a diarization engine is 422; leaving it out just turns it off", async () => {
    await patchSettings({ transcription: { diarizationEngine: "none" } });
    try {
      const asked = await create({ diarization: { enabled: true } });
      expect(asked.status).toBe(422);
      expect(asked.body.error?.details?.[0]).toMatchObject({ path: "input.options.diarization.enabled", issue: "diarizationUnavailable" });
      const quiet = await create({});
      expect(quiet.body.data.input["options"]).toMatchObject({ diarization: { enabled: false } });
    } finally {
      await patchSettings({ transcription: { diarizationEngine: "local-mfcc" } });
      await cancelUnfinished(t);
    }
  });

  it("the vocabulary reaches the job with the glossary's preferred spellings after the job's terms, each once", async () => {
    const own = await createTenant();
    for (const [term, preferred] of [
      ["kubernetes", "Kubernetes"],
      ["ada", "Ada Lovelace"],
    ])
      await call("POST", "/v1/glossary", { key: own.projectKey, body: { term, preferred } });
    const body = transcriptionBody(own, await putSource(`${unique("src")}/clip.mp4`));
    const res = await call<Job>("POST", "/v1/jobs", {
      key: own.projectKey,
      body: { ...body, input: { ...body.input, options: { vocabulary: ["Cloudflare", "kubernetes"] } } },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.input["options"]).toMatchObject({ vocabulary: ["Cloudflare", "kubernetes", "Ada Lovelace"] });
    await cancelUnfinished(own);
  });

  it("a list of one language is the job's hint", async () => {
    const res = await create({ language: ["en"] });
    expect(res.status).toBe(201);
    expect(res.body.data.input["options"]).toMatchObject({ language: "en" });
    await cancelUnfinished(t);
  });

  it("a list of languages is refused where the speech engine cannot detect languages", async () => {
    await patchSettings({ transcription: { supportedSourceLanguages: ["en", "es"] } });
    try {
      const res = await create({ language: ["en", "es"] });
      expect(res.status).toBe(422);
      expect(res.body.error?.details?.[0]).toMatchObject({ path: "input.options.language", issue: "languageListUnsupported" });
    } finally {
      await patchSettings({ transcription: { supportedSourceLanguages: ["en"] } });
    }
  });

  it("a list of languages is stored as the allowed set where the speech engine detects languages", async () => {
    await patchSettings({ transcription: { supportedSourceLanguages: ["en", "es"], speechEngine: "workers-ai" } });
    try {
      const res = await create({ language: ["es", "en"] });
      expect(res.status).toBe(201);
      expect(res.body.data.input["options"]).toMatchObject({ languages: ["es", "en"] });
      expect(res.body.data.input["options"]).not.toHaveProperty("language");
    } finally {
      await patchSettings({ transcription: { supportedSourceLanguages: ["en"], speechEngine: "local-pocketsphinx" } });
      await cancelUnfinished(t);
    }
  });

  it("each listed language must be a supported source language, named by its place in the list", async () => {
    const res = await create({ language: ["en", "de"] });
    expect(res.status).toBe(422);
    expect(res.body.error?.details?.[0]).toMatchObject({ path: "input.options.language.1", issue: "unsupportedLanguage" });
  });

  it("more than 100 vocabulary terms, or a term over 50 characters, is 422", async () => {
    expect((await create({ vocabulary: Array.from({ length: 101 }, (_, i) => `term${i}`) })).status).toBe(422);
    expect((await create({ vocabulary: ["x".repeat(51)] })).status).toBe(422);
  });
});
