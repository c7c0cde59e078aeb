import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { isBookmark } from "../../worker/db/client";
import { BOOKMARK_COOKIE, BOOKMARK_HEADER, sessionStart } from "../../worker/http/d1-session";
import { jobStub } from "../../worker/jobs/stubs";
import { call } from "./helpers/api";
import { signedIn, SITE } from "./helpers/console";
import { submitTranscription, transcriptionBody, useTestPipeline, waitForStatus } from "./helpers/jobs";
import { jobDO, runnerTaskStates, useMachineryTenant } from "./helpers/machinery";
import { putSource } from "./helpers/s3";
import { unique } from "./helpers/tenant";

/**
 * Reads near the reader (docs/api.md, "Read-your-writes: x-d1-bookmark"): every answer carries the
 * request's D1 session bookmark, a read sent with it starts from it, and the bookmark of a create or
 * a cancel covers the job row its Durable Object wrote. The local D1 has no replicas (every session
 * reads the one database), so these tests check the bookmarks and the session each request starts
 * from; the replica lag itself cannot be produced here.
 */

const t = useMachineryTenant({ steps: [{ stages: ["download"] }] });

const bookmarkOf = (res: { headers: Headers }): string => {
  const b = res.headers.get(BOOKMARK_HEADER);
  if (!isBookmark(b)) throw new Error(`no D1 bookmark in the answer: ${String(b)}`);
  return b;
};

/** The bookmark of the job's Durable Object's D1 session: its latest mirror write (create is idempotent and answers it). */
async function mirrorBookmark(job: Job): Promise<string | null> {
  return (await jobStub(env, job.jobId).create(job, [], { userSearch: "", inputSearch: "" })).bookmark;
}

/** A console page as a browser loads it (HTML, not the API's envelope). */
async function page(path: string, cookie?: string): Promise<Response> {
  return exports.default.fetch(new Request(`${SITE}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" }));
}

const bookmarkCookie = (res: Response) => res.headers.getSetCookie().find((c) => c.startsWith(`${BOOKMARK_COOKIE}=`));

async function create(extra: Record<string, unknown> = {}) {
  const key = await putSource(`${unique("in")}/talk.mp4`);
  const res = await call<Job>("POST", "/v1/jobs", { key: t.projectKey, body: transcriptionBody(t, key, extra) });
  if (res.status !== 201) throw new Error(`create failed ${res.status}: ${JSON.stringify(res.body)}`);
  return res;
}

describe("which D1 session a request starts from", () => {
  const bookmark = "00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683";

  it("a write starts on the primary, whatever bookmark it sends", () => {
    for (const method of ["POST", "PATCH", "PUT", "DELETE"]) expect(sessionStart(method, "/v1/jobs", bookmark)).toBe("first-primary");
  });

  it("a read of the API or the console starts from the bookmark it sends", () => {
    expect(sessionStart("GET", "/v1/jobs/job_1", bookmark)).toBe(bookmark);
    expect(sessionStart("HEAD", "/console/jobs", bookmark)).toBe(bookmark);
  });

  it("a read that sends no bookmark, or something that is not one, may read any replica", () => {
    expect(sessionStart("GET", "/v1/jobs", undefined)).toBe("first-unconstrained");
    expect(sessionStart("GET", "/v1/jobs", "latest; DROP TABLE jobs")).toBe("first-unconstrained");
  });

  it("runner and operator routes start on the primary, reads included", () => {
    expect(sessionStart("GET", "/runner/v1/tasks", bookmark)).toBe("first-primary");
    expect(sessionStart("GET", "/admin/v1/settings", undefined)).toBe("first-primary");
  });
});

describe("x-d1-bookmark", () => {
  it("every answer that queried D1 carries the session's bookmark, an error envelope included", async () => {
    const list = await call("GET", "/v1/jobs?limit=1", { key: t.projectKey });
    expect(list.status).toBe(200);
    bookmarkOf(list);
    const missing = await call("GET", "/v1/jobs/job_doesnotexist", { key: t.projectKey });
    expect(missing.status).toBe(404);
    bookmarkOf(missing);
  });

  it("a read sent a bookmark answers one no older than it", async () => {
    const created = bookmarkOf(await create());
    const read = await call("GET", "/v1/jobs?limit=1", { key: t.projectKey, headers: { [BOOKMARK_HEADER]: created } });
    expect(bookmarkOf(read) >= created).toBe(true);
  });

  it("a read sent something that is not a bookmark is answered as if it sent none", async () => {
    const res = await call("GET", "/v1/jobs?limit=1", { key: t.projectKey, headers: { [BOOKMARK_HEADER]: "not-a-bookmark" } });
    expect(res.status).toBe(200);
    bookmarkOf(res);
  });

  it("a create's bookmark covers the job row its Durable Object wrote", async () => {
    const res = await create();
    expect(bookmarkOf(res) >= ((await mirrorBookmark(res.body.data)) ?? "")).toBe(true);
  });

  it("a get sent the create's bookmark reads the created job", async () => {
    const res = await create();
    const got = await call<Job>("GET", `/v1/jobs/${res.body.data.jobId}`, {
      key: t.projectKey,
      headers: { [BOOKMARK_HEADER]: bookmarkOf(res) },
    });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(res.body.data);
  });

  it("a cancel's bookmark covers the cancelled job row its Durable Object wrote", async () => {
    const job = await submitTranscription(t);
    const res = await call<Job>("POST", `/v1/jobs/${job.jobId}/cancel`, { key: t.projectKey });
    expect(res.status).toBe(200);
    expect(bookmarkOf(res) >= ((await mirrorBookmark(job)) ?? "")).toBe(true);
    const got = await call<Job>("GET", `/v1/jobs/${job.jobId}`, { key: t.projectKey, headers: { [BOOKMARK_HEADER]: bookmarkOf(res) } });
    expect(got.body.data.status).toBe("cancelled");
  });
});

describe("the console's bookmark cookie", () => {
  it("a signed-in browser's page answer sets the bookmark cookie", async () => {
    const { browser } = await signedIn(t);
    const res = await page("/console/jobs", browser.cookie);
    expect(res.status).toBe(200);
    const cookie = bookmarkCookie(res);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(isBookmark(cookie?.split(";")[0]?.slice(BOOKMARK_COOKIE.length + 1))).toBe(true);
  });

  it("a browser that is not signed in is given no bookmark cookie", async () => {
    const res = await page("/console/sign-in");
    expect(res.status).toBe(200);
    expect(bookmarkCookie(res)).toBeUndefined();
  });
});

/** D1 refuses the row of the job whose customer ref is `ref` while `work` runs: its object stops after storing the job, as a crash would stop it. */
async function whileJobRowRefused<T>(ref: string, work: () => Promise<T>): Promise<T> {
  const name = `refuse_${ref.replace(/\W/g, "_")}`;
  await env.DB.prepare(
    `CREATE TRIGGER ${name} BEFORE INSERT ON jobs WHEN NEW.customer_job_ref = '${ref}' BEGIN SELECT RAISE(ABORT, 'refused for the test'); END`,
  ).run();
  try {
    return await work();
  } finally {
    await env.DB.prepare(`DROP TRIGGER ${name}`).run();
  }
}

/** The job's object finds this dispatch queue from now on (the previous one is answered, to put back). */
async function useDispatchQueue(jobId: string, queue: unknown): Promise<unknown> {
  return runInDurableObject(jobDO(jobId), (instance) => {
    // The object keeps its bindings on `env`; only the dispatch queue is swapped.
    const bindings = (instance as unknown as { env: Record<string, unknown> }).env;
    Object.defineProperty(instance, "env", { value: { ...bindings, DISPATCH_QUEUE: queue }, configurable: true });
    return bindings["DISPATCH_QUEUE"];
  });
}

describe("a create that stops before its D1 rows are written", () => {
  it("is finished by the job's alarm: the job's row and its first step's lane row are written, the job queued", async () => {
    const ref = unique("stopped");
    const res = await whileJobRowRefused(ref, () => create({ userMetadata: { customerJobRef: ref } }));
    const job = res.body.data;
    expect(job.status).toBe("queued");
    expect(await env.DB.prepare("SELECT id FROM jobs WHERE id = ?").bind(job.jobId).first()).toBeNull();
    expect(await runnerTaskStates(job.jobId)).toEqual([]);

    expect(await runInDurableObject(jobDO(job.jobId), (_instance, state) => state.storage.getAlarm())).not.toBeNull();
    expect(await runDurableObjectAlarm(jobDO(job.jobId))).toBe(true);
    const row = await env.DB.prepare("SELECT status FROM jobs WHERE id = ?").bind(job.jobId).first<{ status: string }>();
    expect(row?.status).toBe("queued");
    expect(await runnerTaskStates(job.jobId)).toEqual(["available"]);
  });

  it("a first step for the dispatch queue is sent by the alarm, again after a refusal, and the job runs", async () => {
    await useTestPipeline("transcription", [{ executor: "worker", stages: ["download"] }]);
    try {
      const ref = unique("stopped");
      const res = await whileJobRowRefused(ref, () => create({ userMetadata: { customerJobRef: ref } }));
      const job = res.body.data;
      expect(job.status).toBe("queued");
      const queue = await useDispatchQueue(job.jobId, { send: () => Promise.reject(new Error("Queue send failed: unavailable")) });
      expect(await runDurableObjectAlarm(jobDO(job.jobId))).toBe(true);
      // The row is written; the message is still owed, so the alarm stays set.
      expect(await env.DB.prepare("SELECT id FROM jobs WHERE id = ?").bind(job.jobId).first()).not.toBeNull();
      expect(await runInDurableObject(jobDO(job.jobId), (_instance, state) => state.storage.getAlarm())).not.toBeNull();
      await useDispatchQueue(job.jobId, queue);
      expect(await runDurableObjectAlarm(jobDO(job.jobId))).toBe(true);
      await waitForStatus(t, job.jobId, "completed");
    } finally {
      await useTestPipeline("transcription", [{ stages: ["download"] }]);
    }
  });
});
