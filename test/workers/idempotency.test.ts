import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Job } from "../../contracts/job";
import type { JobRpc } from "../../durable-objects/job-do";
import { beginIdempotent, IDEMPOTENCY_IN_FLIGHT_MS } from "../../worker/jobs/idempotency";
import { sha256Hex } from "../../worker/platform/crypto";
import { call } from "./helpers/api";
import { transcriptionBody } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";
import { usage } from "./helpers/transcripts";

/**
 * `Idempotency-Key` when things go wrong half-way (review L10): a key left in flight by a request
 * that died stops blocking; a create whose answer could not be stored is answered again, not made
 * twice; a Durable Object whose answer is lost is asked whether it made the job before anything is
 * refunded or removed. Failures are injected in D1 (a trigger) and in the Durable Object's stub.
 */

let t: Tenant;
beforeAll(async () => {
  t = await createTenant({ plan: "pro" });
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function body(): Promise<string> {
  return JSON.stringify(transcriptionBody(t, await putSource(`${unique("idem")}/clip.mp4`)));
}

const create = (rawBody: string, key: string) =>
  call<Job>("POST", "/v1/jobs", {
    key: t.projectKey,
    rawBody,
    headers: { "content-type": "application/json", "idempotency-key": key },
  });

const jobsMeter = async () => (await usage(t))["transcription_jobs"] ?? 0;

/** A key held `in_flight` since `ageMs` ago by a request that never finished (and made no job). */
async function abandonedKey(rawBody: string, ageMs: number): Promise<string> {
  const key = unique("stale");
  const at = new Date(Date.now() - ageMs);
  await env.DB.prepare(
    "INSERT INTO idempotency_keys (project_id, key, request_hash, state, created_at, expires_at) VALUES (?, ?, ?, 'in_flight', ?, ?)",
  )
    .bind(t.projectId, key, await sha256Hex(rawBody), at.toISOString(), new Date(at.getTime() + 86_400_000).toISOString())
    .run();
  return key;
}

describe("a key left in flight by a request that died", () => {
  it("still answers 409 while the request could be running", async () => {
    const rawBody = await body();
    const res = await create(rawBody, await abandonedKey(rawBody, 5_000));
    expect(res.status).toBe(409);
  });

  it(`stops blocking after ${IDEMPOTENCY_IN_FLIGHT_MS / 1000} s: the next request takes the key and creates the job`, async () => {
    const rawBody = await body();
    const key = await abandonedKey(rawBody, IDEMPOTENCY_IN_FLIGHT_MS + 1_000);
    const res = await create(rawBody, key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const again = await create(rawBody, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.jobId).toBe(res.body.data.jobId);
  });
});

describe("a key taken over from a slow request", () => {
  it("the slow request's claim is refused (409) before it makes a job, and the new holder's goes through", async () => {
    const rawBody = await body();
    const key = unique("slow");
    const noJob = async () => null;
    const slow = await beginIdempotent(env.DB, t.projectId, key, rawBody, noJob);
    const later = new Date(Date.now() + IDEMPOTENCY_IN_FLIGHT_MS + 1_000);
    const taker = await beginIdempotent(env.DB, t.projectId, key, rawBody, noJob, later);
    if (slow.kind !== "fresh" || taker.kind !== "fresh") throw new Error("both should hold the key in turn");
    await expect(slow.claim("job_slow")).rejects.toMatchObject({ code: "conflict" });
    await expect(taker.claim("job_taker")).resolves.toBeUndefined();
  });
});

describe("recording the answer fails after the job was created", () => {
  it("a retry with the same key answers the same job, and only one job is charged", async () => {
    const key = unique("unrecorded");
    // The answer's write fails for this key only.
    await env.DB.prepare(
      `CREATE TRIGGER fail_finish BEFORE UPDATE OF state ON idempotency_keys WHEN NEW.key = '${key}' AND NEW.state = 'done'
       BEGIN SELECT RAISE(ABORT, 'injected: answer not recorded'); END`,
    ).run();
    const rawBody = await body();
    const before = await jobsMeter();
    let first: Awaited<ReturnType<typeof create>>;
    try {
      first = await create(rawBody, key);
    } finally {
      await env.DB.prepare("DROP TRIGGER fail_finish").run();
    }
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const retry = await create(rawBody, key);
    expect(retry.status, JSON.stringify(retry.body)).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body.data.jobId).toBe(first.body.data.jobId);
    expect(await jobsMeter()).toBe(before + 1);
  });
});

/** The Durable Object makes the job, then its answer is lost on the way back. */
function loseCreateAnswers(): void {
  const namespace = env.JOBS as unknown as { get(id: DurableObjectId): JobRpc };
  const real = namespace.get.bind(namespace);
  vi.spyOn(namespace, "get").mockImplementation((id) => {
    const stub = real(id);
    return new Proxy(stub, {
      get(target, prop) {
        if (prop === "create")
          return async (...args: Parameters<JobRpc["create"]>) => {
            await target.create(...args);
            throw new Error("injected: the answer was lost");
          };
        // Every other call goes to the real stub (its methods are RPC proxies: called on it, never re-bound).
        return (...args: unknown[]) => (target as unknown as Record<string | symbol, (...a: unknown[]) => unknown>)[prop]?.(...args);
      },
    });
  });
}

describe("the Durable Object's answer is lost after the charge", () => {
  it("the create finds the job it made, answers it, and neither refunds nor removes its records", async () => {
    const before = await jobsMeter();
    loseCreateAnswers();
    const res = await call<Job>("POST", "/v1/jobs", { key: t.projectKey, body: JSON.parse(await body()) });
    vi.restoreAllMocks();
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(await jobsMeter()).toBe(before + 1);
    const transcript = await call("GET", `/v1/transcriptions/${String(res.body.data.input["textSourceId"])}`, { key: t.projectKey });
    expect(transcript.status).toBe(200);
    expect((await call<Job>("GET", `/v1/jobs/${res.body.data.jobId}`, { key: t.projectKey })).body.data.jobId).toBe(res.body.data.jobId);
  });
});
