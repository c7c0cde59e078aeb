import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { SERVICE_TYPES } from "../../contracts/service-types";
import { ROUTE_ACCESS } from "../../worker/auth/route-access";
import { ALL_OPERATIONS } from "../../worker/openapi/document";
import { call, type ApiResponse } from "./helpers/api";
import { createUser, signIn } from "./helpers/console";
import { submitTranscription } from "./helpers/jobs";
import { seedServiceRecords } from "./helpers/records";
import { putSource } from "./helpers/s3";
import { createConnection, createTenant, projectKey, unique, type Tenant } from "./helpers/tenant";

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

/**
 * Every route of the access table, as its own caller would call it (the right kind of key with every
 * permission, real ids of the tenant's records), with hostile bodies, query strings and ids: the
 * route's documented body with one field swapped for something hostile, or a hostile body whole.
 * Whatever arrives, the answer is never a 5xx.
 */
describe("fuzz: every route of the access table", () => {
  const n = 60_000;
  /** Hostile JSON values as text: built as strings, since a deep value cannot be serialised here either. */
  const HOSTILE_JSON = [
    "[".repeat(n) + "]".repeat(n),
    '{"a":'.repeat(n) + "1" + "}".repeat(n),
    `[${Array.from({ length: 50_000 }, (_, i) => i).join(",")}]`,
    JSON.stringify("x".repeat(300_000)),
    JSON.stringify(Array.from({ length: 5000 }, () => "queued")),
    '"\\u0000\\ud800\\u202e\\ufeff"',
    '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"toString":1}',
    "1e309",
    "-0",
    "12345678901234567890123",
    "null",
    "true",
    "{}",
    "[]",
  ];
  const HOSTILE_TEXT = [
    "x".repeat(5000),
    // Valid values of the list filters, repeated: each one a bound parameter if nothing dedupes them.
    ...["queued", "transcription", "raw"].map((v) => Array(400).fill(v).join(",")),
    ",,,,",
    "%",
    "\u0000",
    "\ud83d\ude00".repeat(50),
    "../../etc/passwd",
    "__proto__",
    "constructor",
    "-1",
    "1e309",
    "NaN",
  ];
  const PARAM_VALUES = ["x".repeat(2000), "__proto__", "%2e%2e", "\u202e", "0", "txt_", "job_"];

  let f: { t: Tenant; params: Record<string, string>; keys: Record<string, string>; overrides: Record<string, Record<string, string>> };

  beforeAll(async () => {
    const tenant = await createTenant({ plan: "pro" });
    const job = await submitTranscription(tenant);
    const transcriptionId = String(job.input["textSourceId"]);
    const records = await seedServiceRecords(tenant.projectId, transcriptionId, job.jobId);
    const admin = await createUser(tenant, { role: "admin" });
    const session = (await signIn(admin.email, admin.password, { projectId: tenant.projectId })).cookie.split("=")[1] ?? "";
    const member = await createUser(tenant);
    const spareKey = await projectKey(tenant);
    const spareConnection = await createConnection(tenant.projectKey);
    const term = await call<{ termId: string }>("POST", "/v1/glossary", {
      key: tenant.projectKey,
      body: { term: unique("t"), preferred: "T" },
    });
    const signOutSession = (await signIn(admin.email, admin.password, { projectId: tenant.projectId })).cookie.split("=")[1] ?? "";
    f = {
      t: tenant,
      params: {
        jobId: job.jobId,
        deliveryId: "whd_none",
        projectId: tenant.projectId,
        keyId: spareKey.apiKeyId,
        userId: member.userId,
        connectionId: tenant.connectionId,
        transcriptionId,
        textSourceId: transcriptionId,
        termId: term.body.data.termId,
        ...records,
      },
      keys: { project: tenant.projectKey, anyKey: tenant.projectKey, workspace: tenant.workspaceKey, console: session },
      // Routes that would take away what the other routes run with get their own records.
      overrides: {
        "POST /v1/storage-connections/:connectionId/deactivate": { connectionId: spareConnection },
        "POST /v1/console/sign-out": { key: signOutSession },
      },
    };
  }, 60_000);

  const ROUTES = Object.entries(ROUTE_ACCESS).map(([key, rule]) => {
    const [method, path] = key.split(" ") as [string, string];
    const op = ALL_OPERATIONS.find((o) => o.method.toUpperCase() === method && o.path === path);
    const queryNames = op?.query ? Object.keys(op.query.shape) : [];
    return { key, method, path, rule, example: op?.bodyExample, queryNames };
  });

  /** The example with the field at one path (dotted, objects only) replaced by a placeholder. */
  function withPlaceholder(example: unknown, pick: number): string {
    const paths: string[][] = [];
    const walk = (v: unknown, at: string[]) => {
      if (typeof v !== "object" || v === null || Array.isArray(v)) return;
      for (const [k, child] of Object.entries(v)) {
        paths.push([...at, k]);
        walk(child, [...at, k]);
      }
    };
    walk(example, []);
    const target = paths[pick % Math.max(paths.length, 1)];
    if (!target) return JSON.stringify("__HOSTILE__");
    const copy = structuredClone(example) as Record<string, unknown>;
    let node = copy;
    for (const k of target.slice(0, -1)) node = node[k] as Record<string, unknown>;
    node[target.at(-1) as string] = "__HOSTILE__";
    return JSON.stringify(copy);
  }

  const bodyOf = fc.oneof(
    fc.record({ kind: fc.constant("field" as const), pick: fc.nat(), hostile: fc.constantFrom(...HOSTILE_JSON) }),
    fc.record({ kind: fc.constant("whole" as const), hostile: fc.constantFrom(...HOSTILE_JSON) }),
    fc.record({ kind: fc.constant("random" as const), value: fc.jsonValue({ maxDepth: 4 }) }),
  );

  const keyFor = (r: (typeof ROUTES)[number]) =>
    f.overrides[r.key]?.["key"] ?? (r.rule.access === "public" ? undefined : f.keys[r.rule.access]);

  function pathFor(r: (typeof ROUTES)[number], hostileParam: string | null): string {
    return r.path.replace(/:([A-Za-z]+)/g, (_, name: string) =>
      encodeURIComponent(hostileParam ?? f.overrides[r.key]?.[name] ?? f.params[name] ?? name),
    );
  }

  it.each(ROUTES.filter((r) => r.method !== "GET").map((r) => ({ route: r, name: r.key })))(
    "$name: hostile bodies and ids never get a 5xx",
    async ({ route }) => {
      await fc.assert(
        fc.asyncProperty(bodyOf, fc.option(fc.constantFrom(...PARAM_VALUES), { freq: 4 }), async (b, param) => {
          const rawBody =
            b.kind === "random"
              ? JSON.stringify(b.value)
              : b.kind === "whole"
                ? b.hostile
                : withPlaceholder(route.example ?? {}, b.pick).replace('"__HOSTILE__"', b.hostile);
          const key = keyFor(route);
          const res = await call(route.method, pathFor(route, param), {
            ...(key ? { key } : {}),
            rawBody,
            headers: { "content-type": "application/json" },
          });
          expectWellFormed(res, `${route.key} ${rawBody.slice(0, 200)}`);
        }),
        { numRuns: 12 },
      );
    },
    60_000,
  );

  it.each(ROUTES.filter((r) => r.method === "GET" && r.rule.access !== "public").map((r) => ({ route: r, name: r.key })))(
    "$name: hostile query strings and ids never get a 5xx",
    async ({ route }) => {
      const names = fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...route.queryNames, "limit", "page") },
        { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
      );
      const values = fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
        { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
      );
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(names, values, { maxKeys: 3 }),
          fc.option(fc.constantFrom(...PARAM_VALUES), { freq: 4 }),
          async (q, param) => {
            const query = new URLSearchParams(q).toString();
            const res = await call("GET", `${pathFor(route, param)}?${query}`, { key: keyFor(route) ?? "" });
            expectWellFormed(res, `${route.key}?${query.slice(0, 200)}`);
          },
        ),
        { numRuns: route.queryNames.length > 0 ? 30 : 6 },
      );
    },
    60_000,
  );
});
