import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { SERVICE_TYPES } from "../../contracts/service-types";
import { call, type ApiResponse } from "./helpers/api";
import { putSource } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";

/**
 * Random requests against the public API: whatever arrives, the answer is never a 5xx, and every
 * non-2xx answer is in the error envelope. Bodies are biased towards the create schema (real
 * service types, field names, the tenant's own connection and a real source) so they reach the
 * reference checks, not only the first zod rule.
 */

let t: Tenant;
let sourceKey: string;
beforeAll(async () => {
  t = await createTenant({ plan: "pro" });
  sourceKey = await putSource(`${unique("fuzz")}/clip.mp4`);
});

function expectWellFormed(res: ApiResponse<unknown>, what: string) {
  expect(res.status, what).toBeLessThan(500);
  if (res.status >= 200 && res.status < 300) return;
  expect(res.body, what).toEqual({
    data: null,
    error: { code: expect.any(String), message: expect.any(String), details: expect.any(Array) },
    metadata: expect.any(Object),
  });
  for (const d of res.body.error?.details ?? []) expect(d, what).toEqual({ path: expect.any(String), issue: expect.any(String) });
}

const INPUT_FIELDS = [
  "sourceType",
  "connectionId",
  "bucket",
  "sourceKey",
  "outputPrefix",
  "options",
  "textSourceId",
  "textSourceIds",
  "textSourceJobId",
  "transcriptionId",
  "translationId",
  "targetLanguage",
  "sourceLanguage",
  "sourceLayer",
  "segments",
  "model",
];
const OPTION_FIELDS = [
  "language",
  "preprocessing",
  "analysis",
  "maxClips",
  "layout",
  "fillStyle",
  "categoryOverride",
  "thumbnailCount",
  "nonAiThumbnailCount",
  "ratioWidth",
  "ratioHeight",
  "resolution",
  "diarization",
  "voiceAssignments",
  "voiceCloning",
  "tts",
  "imageQuality",
];

/** Values that are sometimes right: the tenant's connection, the real source, plausible ids. */
const plausible = () =>
  fc.oneof(
    fc.constantFrom(
      t.connectionId,
      t.bucket,
      sourceKey,
      "s3_direct",
      "media-other",
      "txt_missing",
      "job_missing",
      "es",
      "Spanish",
      "/abs/",
      "a/../b",
      "vertical_9_16",
      "",
    ),
    fc.integer({ min: -5, max: 5000 }),
    fc.jsonValue({ maxDepth: 2 }),
  );

const options = () => fc.dictionary(fc.constantFrom(...OPTION_FIELDS), plausible(), { maxKeys: 4 });
const input = () =>
  fc.dictionary(fc.constantFrom(...INPUT_FIELDS), fc.oneof(plausible(), options(), fc.array(plausible(), { maxLength: 3 })), {
    maxKeys: 6,
  });

/** Built inside the test: it needs the tenant's ids. */
const createBody = () =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record(
        {
          serviceType: fc.oneof(fc.constantFrom(...SERVICE_TYPES), fc.string()),
          input: fc.oneof(input(), fc.jsonValue({ maxDepth: 2 })),
          userMetadata: fc.oneof(fc.record({ customerJobRef: fc.string({ maxLength: 130 }) }), fc.jsonValue({ maxDepth: 2 })),
          webhookUrl: fc.oneof(fc.webUrl(), fc.string()),
          priority: fc.constantFrom("low", "high"),
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  );

describe("fuzz", () => {
  it("1,000 random create bodies never get a 5xx, and every refusal is an envelope", async () => {
    await fc.assert(
      fc.asyncProperty(createBody(), async (requestBody) => {
        const res = await call("POST", "/v1/jobs", { key: t.projectKey, body: requestBody });
        expectWellFormed(res, JSON.stringify(requestBody));
      }),
      { numRuns: 1000 },
    );
  }, 120_000);

  it("random raw bodies (malformed JSON, any text) never get a 5xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 200 }),
        fc.constantFrom("application/json", "text/plain", "application/x-www-form-urlencoded", "application/merge-patch+json"),
        async (rawBody, type) => {
          const res = await call("POST", "/v1/jobs", { key: t.projectKey, rawBody, headers: { "content-type": type } });
          expectWellFormed(res, `${type}: ${rawBody}`);
        },
      ),
      { numRuns: 200 },
    );
  }, 60_000);

  it("random GET /v1/jobs query strings never get a 5xx", async () => {
    const keys = fc.oneof(
      fc.constantFrom("page", "limit", "jobId", "customerJobRef", "user", "input", "statuses", "serviceTypes", "sort", "sortDir"),
      fc.string({ maxLength: 8 }),
    );
    const values = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.integer({ min: -10, max: 1000 }).map(String),
      fc.constantFrom("queued,failed", "transcription", "asc", "desc", "created", "%", "_", "\\"),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(keys, values, { maxKeys: 4 }), async (q) => {
        const query = new URLSearchParams(q).toString();
        const res = await call("GET", `/v1/jobs?${query}`, { key: t.projectKey });
        expectWellFormed(res, query);
      }),
      { numRuns: 300 },
    );
  }, 60_000);

  it("random paths and methods never get a 5xx", async () => {
    const prefix = fc.constantFrom(
      "/v1/jobs",
      "/v1/jobs/policy",
      "/v1/workspace",
      "/v1/projects",
      "/v1/storage-connections",
      "/v1/transcriptions",
      "/v1/glossary",
      "/admin/v1",
      "/runner/v1",
      "/v2",
      "",
    );
    const method = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");
    const segments = fc.array(fc.oneof(fc.webSegment(), fc.constantFrom("cancel", "progress", "job_x", "txt_x", "..", "%2F")), {
      maxLength: 3,
    });
    await fc.assert(
      fc.asyncProperty(method, prefix, segments, fc.boolean(), async (m, p, segs, withBody) => {
        const path = [p, ...segs].join("/") || "/";
        const res = await call(m, path, { key: t.projectKey, ...(withBody && m !== "GET" ? { body: { any: "thing" } } : {}) });
        expectWellFormed(res, `${m} ${path}`);
      }),
      { numRuns: 300 },
    );
  }, 60_000);
});
