import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SearchHit } from "../../contracts/catalog";
import type { Job } from "../../contracts/job";
import { startE2E, transcribedSpeech, type E2E } from "../support/e2e-stack";

/**
 * Metadata, summarization, indexing and catalog search through the whole local stack: a real
 * transcription of LibriVox speech, then the local text engine and the local embedding model on a
 * real gpu-runner, and the Worker embedding queries through the local engine process.
 */
let e: E2E;
let textSourceId: string;
let words: string[];

beforeAll(async () => {
  e = await startE2E({ runners: 1 });
  textSourceId = await transcribedSpeech(e);
  const t = await e.api<{ segments: Array<{ text: string }> }>("GET", `/v1/transcriptions/${textSourceId}?layers=segments`);
  words = t.segments.flatMap((s) => s.text.toLowerCase().split(/[^\p{L}\p{N}']+/u)).filter(Boolean);
}, 240_000);
afterAll(async () => e?.close());

async function run(serviceType: string, input: Record<string, unknown>): Promise<Job> {
  const job = await e.api<Job>("POST", "/v1/jobs", { serviceType, input });
  const done = await e.waitForJob(job.jobId, ["completed", "failed"], 120_000);
  expect(done.status, JSON.stringify(done.error)).toBe("completed");
  return done;
}

describe("understanding end to end", () => {
  it("metadata: a title, chapters and keywords from the transcript's own words, saved on it", async () => {
    const done = await run("metadata", { textSourceId });
    const md = await e.api<{ title: string; chapters: Array<{ start: number }>; keywords: string[]; generatedBy: { kind: string } }>(
      "GET",
      `/v1/transcriptions/${textSourceId}/metadata`,
    );
    expect(md.generatedBy.kind).toBe("extractive");
    expect(md.chapters[0]?.start).toBe(0);
    // Nothing invented: every word of every keyword is a word of the transcript.
    expect(md.keywords.flatMap((k) => k.toLowerCase().split(/\s+/)).filter((w) => !words.includes(w))).toEqual([]);
    expect(done.resultSummary).toMatchObject({ textSourceId, title: md.title, chapterCount: md.chapters.length });
  }, 180_000);

  it("summarization: a record with three hooks and five keywords", async () => {
    const done = await run("summarization", { textSourceJobId: textSourceId });
    const rec = await e.api<{ shortSynopsis: string; socialHooks: string[]; keywords: string[] }>(
      "GET",
      `/v1/summarizations/${String(done.resultSummary?.["summarizationId"])}`,
    );
    expect(rec.socialHooks).toHaveLength(3);
    expect(rec.keywords).toHaveLength(5);
    expect(done.resultSummary?.["shortSynopsisPreview"]).toBe(rec.shortSynopsis.slice(0, 100));
  }, 180_000);

  it("indexer then search: hybrid search finds the transcript's words, marked, with times", async () => {
    const done = await run("indexer", { textSourceIds: [textSourceId] });
    expect(done.resultSummary).toMatchObject({ denseEngine: "local-wink", sparseEngine: "catalog-bm25" });
    const long = words.filter((w) => w.length > 6);
    const query = long[Math.floor(long.length / 2)]!;
    const res = await e.api<{ results: SearchHit[] }>("POST", "/v1/catalog/search", { query });
    expect(res.results.length).toBeGreaterThan(0);
    const hit = res.results.find((h) => h.marks.length > 0)!;
    expect(hit.markedText.toLowerCase()).toContain(`<mark>${query}</mark>`);
    expect(hit.end).toBeGreaterThan(hit.start);
    expect(hit.denseRank).not.toBeNull();
  }, 180_000);
});
