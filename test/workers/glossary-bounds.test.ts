import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newId } from "../../contracts/ids";
import { getDb } from "../../worker/db/client";
import { glossaryTerms } from "../../worker/db/schema";
import { GLOSSARY_MAX_TERMS, GLOSSARY_REBUILDS_PER_REQUEST, GLOSSARY_TERM_MAX_CHARS } from "../../worker/transcripts/glossary";
import { call, expectError } from "./helpers/api";
import { createTenant, unique, type Tenant } from "./helpers/tenant";
import { pendingTranscriptRow, saveTranscriptRow } from "./helpers/transcripts";

/**
 * The glossary's bounds (review L1): a capped number of terms of capped length, and a rebuild that
 * stays bounded however many transcripts the project has. A change rebuilds a few transcripts' glossary
 * layers in its request; the rest are rebuilt when next read, so none is ever served from an older
 * glossary, also when a rebuild fails part-way.
 */

const db = () => getDb(env.DB);

/** `n` completed transcripts of the tenant's project, saved as the transcription sink saves them. */
async function completedTranscripts(t: Tenant, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = await pendingTranscriptRow(t.projectId);
    await saveTranscriptRow(t.projectId, id, [
      { id: 0, start: 0, end: 2, text: "the acme rocket" },
      { id: 1, start: 2, end: 4, text: "acme again" },
    ]);
    ids.push(id);
  }
  return ids;
}

const glossaryOf = async (t: Tenant, id: string) =>
  (await call<{ glossary: Array<{ text: string }> }>("GET", `/v1/transcriptions/${id}?layers=glossary`, { key: t.projectKey })).body.data
    .glossary;

const addTerm = (t: Tenant, term: string, preferred: string) =>
  call<{ termId: string }>("POST", "/v1/glossary", { key: t.projectKey, body: { term, preferred } });

describe("glossary size", () => {
  it(`a project holds at most ${GLOSSARY_MAX_TERMS} terms: one more is 422 glossaryFull`, async () => {
    const t = await createTenant({ withConnection: false });
    const now = new Date().toISOString();
    const rows = Array.from({ length: GLOSSARY_MAX_TERMS }, (_, i) => ({
      id: newId("glossaryTerm"),
      projectId: t.projectId,
      term: `term${i}`,
      preferred: `Term${i}`,
      createdAt: now,
    }));
    for (let i = 0; i < rows.length; i += 20)
      await db()
        .insert(glossaryTerms)
        .values(rows.slice(i, i + 20));
    const res = await addTerm(t, "one more", "One More");
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "term", issue: "glossaryFull" }]);
    const list = await call<unknown[]>("GET", "/v1/glossary", { key: t.projectKey });
    expect(list.body.data).toHaveLength(GLOSSARY_MAX_TERMS);
  });

  it(`a term longer than ${GLOSSARY_TERM_MAX_CHARS} characters is 422 tooBig`, async () => {
    const t = await createTenant({ withConnection: false });
    const res = await addTerm(t, "x".repeat(GLOSSARY_TERM_MAX_CHARS + 1), "X");
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "term", issue: "tooBig" }]);
  });
});

describe("glossary rebuilds", () => {
  it(`a change rebuilds at most ${GLOSSARY_REBUILDS_PER_REQUEST} transcripts in its request; the rest are rebuilt before they are read`, async () => {
    const t = await createTenant({ withConnection: false });
    const ids = await completedTranscripts(t, GLOSSARY_REBUILDS_PER_REQUEST + 2);
    const add = await addTerm(t, "acme", "ACME");
    expect(add.status).toBe(201);
    expect(add.body.metadata).toEqual({ rebuiltTranscripts: GLOSSARY_REBUILDS_PER_REQUEST, pendingTranscripts: 2 });
    for (const id of ids) expect((await glossaryOf(t, id)).map((s) => s.text)).toEqual(["the ACME rocket", "ACME again"]);
    const removed = await call("DELETE", `/v1/glossary/${add.body.data.termId}`, { key: t.projectKey });
    expect(removed.body.metadata).toEqual({ rebuiltTranscripts: GLOSSARY_REBUILDS_PER_REQUEST, pendingTranscripts: 2 });
    for (const id of ids) expect((await glossaryOf(t, id)).map((s) => s.text)).toEqual(["the acme rocket", "acme again"]);
  });

  it("a rebuild that fails part-way answers the change, and the transcript it missed is rebuilt when read, never served stale", async () => {
    const t = await createTenant({ withConnection: false });
    const [first, second] = await completedTranscripts(t, 2);
    // Writing the second transcript's glossary layer (its pointer and stamp) fails once the change is made.
    const trigger = `fail_${unique("g").replace(/-/g, "_")}`;
    await env.DB.prepare(
      `CREATE TRIGGER ${trigger} BEFORE UPDATE OF glossary_stamp ON transcripts WHEN NEW.id = '${second}'
       BEGIN SELECT RAISE(ABORT, 'injected: layer write failed'); END`,
    ).run();
    let add: Awaited<ReturnType<typeof addTerm>>;
    try {
      add = await addTerm(t, "rocket", "Rocket");
    } finally {
      await env.DB.prepare(`DROP TRIGGER ${trigger}`).run();
    }
    expect(add.status, JSON.stringify(add.body)).toBe(201);
    expect(add.body.metadata).toEqual({ rebuiltTranscripts: 1, pendingTranscripts: 1 });
    expect((await glossaryOf(t, first as string))[0]?.text).toBe("the acme Rocket");
    expect((await glossaryOf(t, second as string))[0]?.text).toBe("the acme Rocket");
  });
});
