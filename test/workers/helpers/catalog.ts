import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { collectionName } from "../../../contracts/catalog";
import type { Job } from "../../../contracts/job";
import type { LeasedTask } from "../../../contracts/runner-protocol";
import { LEXICAL_DIMENSIONS, LEXICAL_MODEL, lexicalEmbedding } from "../../support/fakes/lexical-vectors";
import { fakeRunner, waitForStatus } from "./jobs";
import type { Tenant } from "./tenant";
import { createJob } from "./understanding";

/**
 * The indexer's runner part played by the test over the real protocol (transcript, catalog.write,
 * catalog.cutover), with the stand-in embedding model on loopback. Files using it set the catalog's
 * embedding engine to `openai-compatible` with LEXICAL_MODEL first.
 */

export const DENSE = { engine: "openai-compatible", model: LEXICAL_MODEL, dimensions: LEXICAL_DIMENSIONS };

/** The runner's part for one transcript: read it, one chunk per segment, embed, write. Returns the chunk count. */
export async function writeTranscript(task: LeasedTask, id: string): Promise<{ chunks: number; language: string }> {
  const doc = (await fakeRunner.transcript(task, id)).body.data;
  const chunks = doc.segments.map((s, position) => ({
    position,
    start: s.start,
    end: s.end,
    segmentIds: [s.id],
    speakers: s.speaker !== undefined ? [s.speaker] : [],
    text: s.text,
    vector: lexicalEmbedding(s.text),
  }));
  const res = await fakeRunner.call(task, "catalog.write", { textSourceId: id, dense: DENSE, chunks });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { chunks: chunks.length, language: doc.language };
}

export async function cutover(task: LeasedTask, id: string, { chunks: chunkCount, language }: { chunks: number; language: string }) {
  const res = await fakeRunner.call<{ removedStaleChunks: number; reindexed: boolean }>(task, "catalog.cutover", {
    textSourceId: id,
    dense: DENSE,
    chunkCount,
    segmentCount: chunkCount,
    transcriptRevision: 1,
    language,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { textSourceId: id, segmentCount: chunkCount, indexedChunks: chunkCount, ...res.body.data };
}

/** A whole indexer job: create, then the runner writes and cuts over every transcript and completes. */
export async function index(tenant: Tenant, ids: string[]): Promise<Job> {
  const job = await createJob(tenant, "indexer", { textSourceIds: ids });
  const task = await fakeRunner.leaseWhenReady(job.jobId, ["indexer"]);
  const counts = [];
  for (const id of job.input["textSourceIds"] as string[]) counts.push([id, await writeTranscript(task, id)] as const);
  const indexed = [];
  for (const [id, n] of counts) indexed.push(await cutover(task, id, n));
  const result = {
    denseEngine: DENSE.engine,
    denseModel: DENSE.model,
    dimensions: DENSE.dimensions,
    sparseEngine: "catalog-bm25",
    chunkType: "segment_window",
    indexedTranscriptions: indexed,
  };
  expect((await fakeRunner.complete(task, result)).status).toBe(200);
  return waitForStatus(tenant, job.jobId, "completed");
}

/** The chunk rows (every generation) of a transcript in its project's catalog object. */
export async function storedChunks(tenant: Tenant, id: string): Promise<number> {
  const stub = env.CATALOG.get(env.CATALOG.idFromName(collectionName(tenant.projectId)));
  return runInDurableObject(
    stub,
    (_, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM chunks WHERE text_source_id = ?", id).one().n,
  );
}
