import { exports } from "cloudflare:workers";
import type { Job } from "../../../contracts/job";
import { speakerList } from "../../../contracts/speakers";
import type { Segment } from "../../../contracts/transcript";
import { call } from "./api";
import { fakeRunner, transcriptionBody, waitForStatus } from "./jobs";
import { putSource } from "./s3";
import type { Tenant } from "./tenant";

import { TRANSCRIPTION_HANDLER, transcriptionResult, type CompletedTranscript } from "./transcripts";

/**
 * Runs a transcription of the object `sourceKey` to `completed` through the real pipeline, the test
 * playing the runner: it reports `segments` as given, with the speaker list and diarizer the runner
 * would report for them.
 */
export async function completedTranscriptOf(t: Tenant, sourceKey: string, segments: Segment[]): Promise<CompletedTranscript> {
  await putSource(sourceKey);
  const created = await call<Job>("POST", "/v1/jobs", { key: t.projectKey, body: transcriptionBody(t, sourceKey) });
  if (created.status !== 201) throw new Error(`create failed ${created.status}: ${JSON.stringify(created.body)}`);
  const job = created.body.data;
  const task = await fakeRunner.leaseWhenReady(job.jobId, TRANSCRIPTION_HANDLER);
  const diarized = segments.some((s) => s.speaker !== undefined);
  const result = {
    ...transcriptionResult(job, 0),
    durationSec: Math.max(0, ...segments.map((s) => s.end)),
    segments,
    speakers: speakerList(segments),
    diarization: diarized ? { engine: "test-diarizer", model: "test" } : null,
  };
  const res = await fakeRunner.complete(task, result);
  if (res.status !== 200) throw new Error(`complete failed ${res.status}: ${JSON.stringify(res.body)}`);
  await waitForStatus(t, job.jobId, "completed");
  return { jobId: job.jobId, textSourceId: String(job.input["textSourceId"]) };
}

export interface Download {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  text: string;
}

/** GETs a file route the way a browser or `curl -O` does: the body as bytes, not as a JSON envelope. */
export async function download(path: string, key: string): Promise<Download> {
  const res = await exports.default.fetch(new Request(`http://media-jobs.test${path}`, { headers: { authorization: `Bearer ${key}` } }));
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: new TextDecoder().decode(bytes) };
}
