import { beforeAll, describe, expect, it } from "vitest";
import { USER_METADATA_MAX_DEPTH } from "../../contracts/request-fields";
import { MAX_QUERY_LIST_ITEMS } from "../../worker/http/query-lists";
import { call, expectError } from "./helpers/api";
import { submitTranscription, transcriptionBody } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";

/**
 * Inputs that used to answer 500 (review L2): `userMetadata` nested past what a recursive walk
 * survives, and comma lists long enough to pass D1's bound-parameter limit. Both are 4xx now.
 */

let t: Tenant;
let transcriptionId: string;
beforeAll(async () => {
  t = await createTenant({ plan: "pro" });
  transcriptionId = String((await submitTranscription(t)).input["textSourceId"]);
});

/** A create body as raw JSON text with `userMetadata` nested `depth` levels (the object itself is level 1). */
async function bodyWithMetadataDepth(depth: number): Promise<string> {
  const body = JSON.stringify(transcriptionBody(t, await putSource(`${unique("deep")}/clip.mp4`), { userMetadata: "__META__" }));
  const nested = '{"a":'.repeat(depth - 1) + "{}" + "}".repeat(depth - 1);
  return body.replace('"__META__"', nested);
}

const create = (rawBody: string) =>
  call("POST", "/v1/jobs", { key: t.projectKey, rawBody, headers: { "content-type": "application/json" } });

describe("userMetadata depth", () => {
  it("userMetadata nested 50,000 levels deep is 422 tooDeep, not 500", async () => {
    const res = await create(await bodyWithMetadataDepth(50_000));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "userMetadata", issue: "tooDeep" }]);
  });

  it(`userMetadata nested ${USER_METADATA_MAX_DEPTH + 1} levels is 422 tooDeep`, async () => {
    const res = await create(await bodyWithMetadataDepth(USER_METADATA_MAX_DEPTH + 1));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "userMetadata", issue: "tooDeep" }]);
  });

  it(`userMetadata nested ${USER_METADATA_MAX_DEPTH} levels is accepted`, async () => {
    const res = await create(await bodyWithMetadataDepth(USER_METADATA_MAX_DEPTH));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

describe("comma-separated query lists", () => {
  const list = (query: string) => call("GET", `/v1/jobs?${query}`, { key: t.projectKey });

  it("GET /v1/jobs?statuses= with 500 duplicates is 422 tooBig, not a D1 500", async () => {
    const res = await list(`statuses=${Array(500).fill("queued").join(",")}`);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "query.statuses", issue: "tooBig" }]);
  });

  it("GET /v1/jobs?serviceTypes= with 500 values is 422 tooBig", async () => {
    const res = await list(`serviceTypes=${Array(500).fill("transcription").join(",")}`);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "query.serviceTypes", issue: "tooBig" }]);
  });

  it(`up to ${MAX_QUERY_LIST_ITEMS} values are deduplicated and answered`, async () => {
    const res = await list(`statuses=${Array(MAX_QUERY_LIST_ITEMS).fill("queued").join(",")}&serviceTypes=transcription,transcription`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it("GET /v1/transcriptions/{id}?layers= with 500 values is 422 tooBig; a few duplicates are answered", async () => {
    const many = await call("GET", `/v1/transcriptions/${transcriptionId}?layers=${Array(500).fill("raw").join(",")}`, {
      key: t.projectKey,
    });
    expectError(many, 422, "validationError");
    expect(many.body.error?.details).toEqual([{ path: "query.layers", issue: "tooBig" }]);
    const few = await call("GET", `/v1/transcriptions/${transcriptionId}?layers=raw,raw,segments`, { key: t.projectKey });
    expect(few.status, JSON.stringify(few.body)).toBe(200);
  });
});
