import { beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { ListJobsQuerySchema } from "../../worker/jobs/list";
import { call } from "./helpers/api";
import { fakeRunner, getJob, transcriptionBody, useTestPipeline } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { consoleSession, createTenant, unique, type Tenant } from "./helpers/tenant";
import { completedTranscript } from "./helpers/transcripts";

/**
 * GET /v1/jobs: every filter and sort of the spec's table, the page/limit rules and
 * `metadata.pagination`. One project holds five jobs with different service types, statuses,
 * creators and inputs; another project's job must never show up.
 */

interface Fixtures {
  t: Tenant;
  other: Tenant;
  /** completed transcription, created with the tenant's `ci-key`. */
  completed: Job;
  /** queued transcription by the key `editor-bob`, customerJobRef `ref-beta`, source `…/episode-42.mp4`. */
  queued: Job;
  bobKeyId: string;
  /** cancelled transcription, created from a console session of user `carol-…`. */
  cancelled: Job;
  carol: string;
  /** failed metadata job (test pipeline). */
  failed: Job;
  /** processing summarization job (test pipeline). */
  processing: Job;
  otherJob: Job;
  /** Every job of the tenant, as GET returns them now. */
  all: Job[];
}
const f = {} as Fixtures;

async function create(key: string, requestBody: unknown): Promise<Job> {
  const res = await call<Job>("POST", "/v1/jobs", { key, body: requestBody });
  if (res.status !== 201) throw new Error(`create failed ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

async function newKey(t: Tenant, name: string): Promise<{ secret: string; apiKeyId: string }> {
  const res = await call<{ secret: string; apiKeyId: string }>("POST", `/v1/projects/${t.projectId}/api-keys`, {
    key: t.workspaceKey,
    body: { name },
  });
  return res.body.data;
}

beforeAll(async () => {
  [f.t, f.other] = await Promise.all([createTenant({ plan: "pro" }), createTenant({ plan: "pro" })]);
  const t = f.t;
  await useTestPipeline("metadata", [{ stages: ["load_transcription"] }]);
  await useTestPipeline("summarization", [{ stages: ["synthesis"] }]);

  const { jobId: completedId, textSourceId } = await completedTranscript(t, 2);

  const bob = await newKey(t, "editor-bob");
  f.bobKeyId = bob.apiKeyId;
  const episode = await putSource(`${unique("podcasts")}/episode-42.mp4`);
  f.queued = await create(bob.secret, transcriptionBody(t, episode, { userMetadata: { customerJobRef: "ref-beta" } }));

  f.carol = unique("carol");
  const byCarol = await create(
    (await consoleSession(t, f.carol)).secret,
    transcriptionBody(t, await putSource(`${unique("c")}/keynote.mov`)),
  );
  await call("POST", `/v1/jobs/${byCarol.jobId}/cancel`, { key: t.projectKey });

  const metadataJob = await create(t.projectKey, {
    serviceType: "metadata",
    input: { textSourceId },
    userMetadata: { customerJobRef: "ref-delta" },
  });
  await fakeRunner.fail(await fakeRunner.leaseWhenReady(metadataJob.jobId), "processing_failed", false, "nope");

  const summaryJob = await create(t.projectKey, { serviceType: "summarization", input: { textSourceJobId: textSourceId } });
  await fakeRunner.leaseWhenReady(summaryJob.jobId);

  f.otherJob = await create(
    f.other.projectKey,
    transcriptionBody(f.other, await putSource(`${unique("podcasts")}/episode-42.mp4`), { userMetadata: { customerJobRef: "ref-beta" } }),
  );

  const current = await Promise.all(
    [completedId, f.queued.jobId, byCarol.jobId, metadataJob.jobId, summaryJob.jobId].map((id) => getJob(t, id)),
  );
  [f.completed, f.queued, f.cancelled, f.failed, f.processing] = current as [Job, Job, Job, Job, Job];
  f.all = current;
}, 60_000);

const list = (query: string, key = f.t.projectKey) => call<Job[]>("GET", `/v1/jobs${query ? `?${query}` : ""}`, { key });
const ids = (jobs: Job[]) => jobs.map((j) => j.jobId);
const idSet = (jobs: Job[]) => [...ids(jobs)].sort();

describe("fixtures", () => {
  it("cover the statuses the filters and sorts need", () => {
    expect(f.all.map((j) => j.status)).toEqual(["completed", "queued", "cancelled", "failed", "processing"]);
  });
});

describe("filters", () => {
  it.each<{ rule: string; query: () => string; expected: () => Job[] }>([
    { rule: "jobId matches a substring", query: () => `jobId=${f.queued.jobId.slice(6, 14)}`, expected: () => [f.queued] },
    { rule: "jobId matching ignores case", query: () => `jobId=${f.queued.jobId.slice(6, 14).toUpperCase()}`, expected: () => [f.queued] },
    { rule: "customerJobRef matches exactly", query: () => "customerJobRef=ref-beta", expected: () => [f.queued] },
    { rule: "customerJobRef does not match a prefix", query: () => "customerJobRef=ref-bet", expected: () => [] },
    { rule: "user matches a substring of the key name", query: () => "user=editor-b", expected: () => [f.queued] },
    {
      rule: "user matches a substring of the creator label (console user)",
      query: () => `user=${f.carol.slice(0, 12)}`,
      expected: () => [f.cancelled],
    },
    { rule: "user matches the key id", query: () => `user=${f.bobKeyId}`, expected: () => [f.queued] },
    { rule: "user matches every job of a key", query: () => "user=ci-key", expected: () => [f.completed, f.failed, f.processing] },
    { rule: "input matches a substring of the sourceKey", query: () => "input=episode-42", expected: () => [f.queued] },
    { rule: "input matches the bucket", query: () => "input=media-test", expected: () => [f.completed, f.queued, f.cancelled] },
    {
      rule: "input matches a whole s3:// source URL, longer than LIKE's 50-byte pattern limit",
      query: () => `input=${encodeURIComponent(`s3://${f.queued.input["bucket"]}/${f.queued.input["sourceKey"]}`)}`,
      expected: () => [f.queued],
    },
    {
      rule: "input matches a referenced transcript id",
      query: () => `input=${String(f.completed.input["textSourceId"])}`,
      expected: () => [f.completed, f.failed, f.processing],
    },
    {
      rule: "statuses takes a comma-separated list",
      query: () => "statuses=completed,cancelled",
      expected: () => [f.completed, f.cancelled],
    },
    { rule: "statuses with one status", query: () => "statuses=processing", expected: () => [f.processing] },
    {
      rule: "serviceTypes takes a comma-separated list",
      query: () => "serviceTypes=metadata,summarization",
      expected: () => [f.failed, f.processing],
    },
    { rule: "filters combine with AND", query: () => "serviceTypes=transcription&statuses=queued,failed", expected: () => [f.queued] },
    { rule: "no filter lists every job of the project", query: () => "", expected: () => f.all },
  ])("$rule", async ({ query, expected }) => {
    const res = await list(query());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(idSet(res.body.data)).toEqual(idSet(expected()));
  });

  it("another project's jobs are never listed, even when a filter matches them", async () => {
    for (const query of ["", "customerJobRef=ref-beta", "input=episode-42", `jobId=${f.otherJob.jobId}`]) {
      expect(ids((await list(query)).body.data)).not.toContain(f.otherJob.jobId);
    }
  });
});

describe("filters at their maximum length", () => {
  /** The schema's maximum length of a string filter. */
  const maxOf = (name: "jobId" | "customerJobRef" | "user" | "input") => {
    const max = ListJobsQuerySchema.shape[name].unwrap().maxLength;
    if (max === null) throw new Error(`${name} has no maximum length`);
    return max;
  };
  const long = {} as { t: Tenant; handle: string; ref: string; url: string; byHandle: Job; withRef: Job; withLongKey: Job };

  beforeAll(async () => {
    long.t = await createTenant({ plan: "pro" });
    const t = long.t;
    long.handle = unique("dana").padEnd(120, "x");
    long.byHandle = await create(
      (await consoleSession(t, long.handle)).secret,
      transcriptionBody(t, await putSource(`${unique("d")}/interview.mp4`)),
    );
    long.ref = unique("ref")
      .replace(/[^A-Za-z0-9_-]/g, "_")
      .padEnd(maxOf("customerJobRef"), "r");
    long.withRef = await create(
      t.projectKey,
      transcriptionBody(t, await putSource(`${unique("r")}/promo.mp4`), { userMetadata: { customerJobRef: long.ref } }),
    );
    // The longest object key (1024), in segments short enough for the local S3 server's file names.
    const head = unique("deep").padEnd(24, "d");
    const tail = "/episode-42-final.mp4";
    const key = head + ("/" + "s".repeat(199)).repeat(6).slice(0, 1024 - head.length - tail.length) + tail;
    long.withLongKey = await create(t.projectKey, transcriptionBody(t, await putSource(key)));
    long.url = `s3://${t.bucket}/${key}`;
  }, 60_000);

  const listLong = (query: string) => list(query, long.t.projectKey);

  it("the URL of the long-key fixture is longer than the input maximum", () => {
    expect(long.url.length).toBeGreaterThan(maxOf("input"));
  });

  it.each(["jobId", "customerJobRef", "user", "input"] as const)("%s at its maximum length is searched, not refused", async (name) => {
    const res = await listLong(`${name}=${"z".repeat(maxOf(name))}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it.each(["jobId", "customerJobRef", "user", "input"] as const)("%s one character past its maximum is 422", async (name) => {
    const res = await listLong(`${name}=${"z".repeat(maxOf(name) + 1)}`);
    expect(res.status).toBe(422);
    expect(res.body.error?.details).toEqual([{ path: `query.${name}`, issue: "tooBig" }]);
  });

  it("input at its maximum length matches a substring of a long source URL", async () => {
    const res = await listLong(`input=${encodeURIComponent(long.url.slice(0, maxOf("input")))}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(ids(res.body.data)).toEqual([long.withLongKey.jobId]);
  });

  it("input matching at the maximum ignores case", async () => {
    const res = await listLong(`input=${encodeURIComponent(long.url.slice(-maxOf("input")).toUpperCase())}`);
    expect(ids(res.body.data)).toEqual([long.withLongKey.jobId]);
  });

  it("user matches a whole console handle of the longest allowed length", async () => {
    const res = await listLong(`user=${long.handle}`);
    expect(ids(res.body.data)).toEqual([long.byHandle.jobId]);
  });

  it("customerJobRef at its maximum length matches exactly", async () => {
    const res = await listLong(`customerJobRef=${long.ref}`);
    expect(ids(res.body.data)).toEqual([long.withRef.jobId]);
  });

  it("jobId matches a whole job id", async () => {
    const res = await listLong(`jobId=${long.byHandle.jobId}`);
    expect(ids(res.body.data)).toEqual([long.byHandle.jobId]);
  });
});

describe("sorts", () => {
  const key: Record<string, (j: Job) => string> = {
    jobId: (j) => j.jobId,
    service: (j) => j.serviceType,
    status: (j) => j.status,
    user: (j) => j.createdByLabel,
    created: (j) => j.createdAt,
  };
  /** The order the spec's sort promises, ties broken by jobId in the same direction. */
  const expectedOrder = (sort: string, dir: "asc" | "desc") =>
    [...f.all]
      .sort((a, b) => {
        const ka = (key[sort] as (j: Job) => string)(a);
        const kb = (key[sort] as (j: Job) => string)(b);
        const c = ka < kb ? -1 : ka > kb ? 1 : a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0;
        return dir === "asc" ? c : -c;
      })
      .map((j) => j.jobId);

  const cases = Object.keys(key).flatMap((sort) => (["asc", "desc"] as const).map((dir) => ({ sort, dir })));
  it.each(cases)("sort=$sort&sortDir=$dir", async ({ sort, dir }) => {
    const res = await list(`sort=${sort}&sortDir=${dir}`);
    expect(res.status).toBe(200);
    expect(ids(res.body.data)).toEqual(expectedOrder(sort, dir));
  });

  it("the default is created, newest first", async () => {
    expect(ids((await list("")).body.data)).toEqual(expectedOrder("created", "desc"));
  });

  it("sortDir defaults to desc", async () => {
    expect(ids((await list("sort=jobId")).body.data)).toEqual(expectedOrder("jobId", "desc"));
  });
});

describe("pagination", () => {
  it("defaults to page 1 of 20, with metadata.pagination { page, limit, total, totalPages }", async () => {
    const res = await list("");
    expect(res.body.metadata["pagination"]).toEqual({ page: 1, limit: 20, total: 5, totalPages: 1 });
  });

  it("pages are consecutive slices of the same order", async () => {
    const all = ids((await list("sort=jobId&sortDir=asc")).body.data);
    const pages = await Promise.all([1, 2, 3].map((page) => list(`sort=jobId&sortDir=asc&limit=2&page=${page}`)));
    expect(pages.flatMap((p) => ids(p.body.data))).toEqual(all);
    expect(pages[1]?.body.metadata["pagination"]).toEqual({ page: 2, limit: 2, total: 5, totalPages: 3 });
  });

  it("a page past the end is empty but still reports the total", async () => {
    const res = await list("limit=2&page=9");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.metadata["pagination"]).toEqual({ page: 9, limit: 2, total: 5, totalPages: 3 });
  });

  it("pagination counts only the filtered jobs", async () => {
    const res = await list("serviceTypes=transcription&limit=1");
    expect(res.body.data).toHaveLength(1);
    expect(res.body.metadata["pagination"]).toEqual({ page: 1, limit: 1, total: 3, totalPages: 3 });
  });

  it("limit=100 is allowed", async () => {
    expect((await list("limit=100")).status).toBe(200);
  });
});

describe("query validation", () => {
  it.each([
    { query: "limit=101", path: "query.limit", issue: "tooBig" },
    { query: "limit=0", path: "query.limit", issue: "tooSmall" },
    { query: "page=0", path: "query.page", issue: "tooSmall" },
    { query: "page=1.5", path: "query.page", issue: "invalidFormat" },
    { query: "limit=ten", path: "query.limit", issue: "invalidFormat" },
    { query: "page=-1", path: "query.page", issue: "invalidFormat" },
    { query: "statuses=queued,sleeping", path: "query.statuses", issue: "invalidValue" },
    { query: "serviceTypes=transcription,ocr", path: "query.serviceTypes", issue: "invalidValue" },
    { query: "sort=size", path: "query.sort", issue: "invalidValue" },
    { query: "sortDir=up", path: "query.sortDir", issue: "invalidValue" },
    { query: "owner=me", path: "query.owner", issue: "notAllowed" },
  ])("$query is 422 ($path $issue)", async ({ query, path, issue }) => {
    const res = await list(query);
    expect(res.status).toBe(422);
    expect(res.body.data).toBeNull();
    expect(res.body.error?.code).toBe("validationError");
    expect(res.body.error?.details).toEqual([{ path, issue }]);
  });
});
