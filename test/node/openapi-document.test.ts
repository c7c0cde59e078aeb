import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, it } from "vitest";
import { newJob } from "../../contracts/job";
import { documentExamples, OpenApiValidator, type OpenApiDocumentShape } from "../support/openapi-validator";

/**
 * The OpenAPI document against the OpenAPI 3.1 schema. Runs in Node: the validator reads its
 * schemas from disk and compiles them with `new Function`, neither of which workerd allows.
 * test/workers/openapi.test.ts covers what the Worker serves and that every route is in it.
 */

/**
 * The document's modules are Worker code, type-checked by tsconfig.worker.json; a computed
 * specifier keeps them out of this project's type check (they run in Node unchanged).
 */
const DOCUMENT_MODULE = "../../worker/openapi/document";

interface DocumentModule {
  buildOpenApiDocument(): Record<string, unknown>;
}

let build: () => Record<string, unknown>;
beforeAll(async () => {
  build = ((await import(DOCUMENT_MODULE)) as DocumentModule).buildOpenApiDocument;
});

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document, every $ref resolving", async () => {
    const result = await new Validator().validate(build() as never);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it("comes out the same every time it is built", () => {
    expect(JSON.stringify(build())).toBe(JSON.stringify(build()));
  });
});

describe("the document read by a JSON Schema 2020-12 validator (Ajv), as a generated client reads it", () => {
  const validator = () => new OpenApiValidator(build() as OpenApiDocumentShape);
  type Schema = { type?: unknown; enum?: unknown[]; [k: string]: unknown };

  it("every example in the document validates against its own schema", () => {
    const v = validator();
    const examples = documentExamples(v.doc);
    expect(examples.length).toBeGreaterThan(100);
    const failing = examples.flatMap((e) => v.mismatches(e.schema, e.value).map((m) => `${e.where} at ${m.at || "/"}: ${m.message}`));
    expect(failing).toEqual([]);
  });

  it("every id in the examples has a prefix the service mints (contracts/ids.ts): no sc_, key_ or ULIDs", async () => {
    const { ID_PREFIX } = await import("../../contracts/ids");
    const prefixes = Object.values(ID_PREFIX);
    // `accessKeyId` is a storage connection's S3 access key, not one of our ids; a workflow step's
    // `{{transcribe.textSourceId}}` is a template that becomes an id when the step's job is made.
    const template = /^\{\{[a-z][a-z0-9_-]*\.[A-Za-z0-9_.]+\}\}$/;
    const wrong: string[] = [];
    const visit = (value: unknown, at: string) => {
      if (Array.isArray(value)) return value.forEach((v, i) => visit(v, `${at}/${i}`));
      if (!value || typeof value !== "object") return;
      for (const [k, v] of Object.entries(value)) {
        if (
          /Id$/.test(k) &&
          k !== "accessKeyId" &&
          typeof v === "string" &&
          !template.test(v) &&
          !(prefixes.some((p) => v.startsWith(p)) && /^[a-z]+_[0-9a-z_]+$/.test(v))
        )
          wrong.push(`${at}/${k}: ${v}`);
        visit(v, `${at}/${k}`);
      }
    };
    for (const e of documentExamples(validator().doc)) visit(e.value, e.where);
    expect(wrong).toEqual([]);
  });

  it("a nullable enum lists null among its values (a Job's cancelMode is null until a cancel)", () => {
    const v = validator();
    expect(v.mismatches("#/components/schemas/Job/properties/cancelMode", null)).toEqual([]);
    expect(v.mismatches("#/components/schemas/Job/properties/cancelMode", "graceful")).toEqual([]);
    expect(v.mismatches("#/components/schemas/Job/properties/cancelMode", "hard")).not.toEqual([]);
  });

  it("no schema anywhere in the document allows null by its type while its enum leaves null out", () => {
    const wrong: string[] = [];
    const visit = (node: unknown, at: string) => {
      if (Array.isArray(node)) return node.forEach((n, i) => visit(n, `${at}/${i}`));
      if (!node || typeof node !== "object") return;
      const s = node as Schema;
      const types = Array.isArray(s.type) ? s.type : [s.type];
      if (types.includes("null") && Array.isArray(s.enum) && !s.enum.includes(null)) wrong.push(at);
      for (const [k, child] of Object.entries(s)) if (k !== "example" && k !== "examples") visit(child, `${at}/${k}`);
    };
    visit(build(), "#");
    expect(wrong).toEqual([]);
  });

  it("a real Job, as the API sends it, is a Job: every nullable field null", () => {
    const v = validator();
    // Made the way the create makes one (contracts/job.ts), then queued as the first answer shows it.
    const job = {
      ...newJob({
        jobId: "job_0123456789abcdefghij",
        serviceType: "transcription",
        priority: "low",
        workspaceId: "wsp_0123456789abcdefghij",
        projectId: "prj_0123456789abcdefghij",
        workspacePlan: "free",
        input: {},
        webhookUrl: null,
        createdByLabel: "ci key",
        createdByKind: "api_key",
        apiKeyLabel: "ci key",
        apiKeyId: "pak_0123456789abcdefghij",
        isConsoleKey: false,
        createdAt: "2026-11-23T16:00:00.000Z",
        userMetadata: null,
      }),
      status: "queued",
    };
    expect(v.mismatches("#/components/schemas/Job", job)).toEqual([]);
  });
});

/**
 * Redocly's `recommended` ruleset, the rules that apply to a generated document, checked here
 * without the package (none is installed): examples (no-invalid-media-type-examples) are checked by
 * Ajv above, unique operation ids and summaries by test/workers/openapi.test.ts.
 */
describe("Redocly's recommended rules", () => {
  type Op = {
    parameters?: Array<{ in: string; name: string }>;
    responses: Record<string, unknown>;
    security?: Array<Record<string, string[]>>;
    tags?: string[];
  };
  type Doc = {
    paths: Record<string, Record<string, Op>>;
    components: Record<string, Record<string, unknown>>;
    tags: Array<{ name: string; description?: string }>;
  };
  const doc = () => build() as unknown as Doc;
  const operations = (d: Doc) =>
    Object.entries(d.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

  it("path-parameters-defined: every {param} of a path is a path parameter of each of its operations, and no other", () => {
    const wrong: string[] = [];
    for (const { path, method, op } of operations(doc())) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = (op.parameters ?? [])
        .filter((p) => p.in === "path")
        .map((p) => p.name)
        .sort();
      if (JSON.stringify(inPath) !== JSON.stringify(declared)) wrong.push(`${method} ${path}`);
    }
    expect(wrong).toEqual([]);
  });

  it("operation-2xx-response and operation-4xx-response: every operation answers a success and at least one client error", () => {
    const wrong = operations(doc())
      .filter(
        ({ op }) => !Object.keys(op.responses).some((s) => s.startsWith("2")) || !Object.keys(op.responses).some((s) => s.startsWith("4")),
      )
      .map(({ method, path }) => `${method} ${path}`);
    expect(wrong).toEqual([]);
  });

  it("operation-parameters-unique: no parameter is listed twice", () => {
    const wrong = operations(doc()).filter(({ op }) => {
      const keys = (op.parameters ?? []).map((p) => `${p.in}:${p.name}`);
      return new Set(keys).size !== keys.length;
    });
    expect(wrong.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
  });

  it("no-identical-paths, no-ambiguous-paths and no-path-trailing-slash", () => {
    const paths = Object.keys(doc().paths);
    const shapes = paths.map((p) => p.replace(/\{[^}]+\}/g, "{}"));
    expect(shapes.filter((s, i) => shapes.indexOf(s) !== i)).toEqual([]);
    expect(paths.filter((p) => p.length > 1 && p.endsWith("/"))).toEqual([]);
  });

  it("security-defined: every security requirement names a defined scheme", () => {
    const d = doc();
    const schemes = new Set(Object.keys(d.components["securitySchemes"] ?? {}));
    const used = operations(d).flatMap(({ op }) => (op.security ?? []).flatMap((r) => Object.keys(r)));
    expect(used.filter((u) => !schemes.has(u))).toEqual([]);
  });

  it("tag-description and operation-tag-defined: every tag an operation uses is declared with a description", () => {
    const d = doc();
    const declared = new Map(d.tags.map((t) => [t.name, t.description]));
    const used = new Set(operations(d).flatMap(({ op }) => op.tags ?? []));
    expect([...used].filter((t) => !declared.has(t))).toEqual([]);
    expect(d.tags.filter((t) => !t.description).map((t) => t.name)).toEqual([]);
  });

  it("no-unused-components: every component schema and response is referenced", () => {
    const d = doc();
    const text = JSON.stringify({ paths: d.paths, components: d.components });
    const unused = ["schemas", "responses"].flatMap((kind) =>
      Object.keys(d.components[kind] ?? {}).filter((name) => !text.includes(`"#/components/${kind}/${name}"`)),
    );
    expect(unused).toEqual([]);
  });
});

describe("the response check the end-to-end tests run (test/support/openapi-validator.ts)", () => {
  const validator = () => new OpenApiValidator(build() as OpenApiDocumentShape);

  it("finds the operation by method and path template, literal segments first", () => {
    const v = validator();
    expect(v.template("/v1/jobs/policy?serviceType=transcription")).toBe("/v1/jobs/policy");
    expect(v.template("/v1/jobs/job_0123456789abcdefghij")).toBe("/v1/jobs/{jobId}");
    expect(v.template("/v1/nothing-here")).toBeNull();
  });

  it("fails naming the operation, the status and the JSON pointer of the mismatch", () => {
    const v = validator();
    const body = { data: { jobId: 42 }, metadata: {} };
    expect(() => v.checkResponse({ method: "GET", path: "/v1/jobs/job_x", status: 200, body })).toThrow(
      /GET \/v1\/jobs\/job_x → 200: the response does not match the OpenAPI document[\s\S]*at \/data\/jobId: must be string/,
    );
  });

  it("fails for an answer the document does not list for the operation", () => {
    expect(() => validator().checkResponse({ method: "GET", path: "/v1/jobs/job_x", status: 418, body: {} })).toThrow(
      "GET /v1/jobs/job_x → 418: not in the OpenAPI document (GET /v1/jobs/{jobId} documents no 418 response)",
    );
  });

  it("checks error answers against the error envelope, through a shared response's $ref", () => {
    const v = validator();
    const envelope = { data: null, error: { code: "internalError", message: "internal error", details: [] }, metadata: {} };
    expect(() => v.checkResponse({ method: "GET", path: "/v1/jobs", status: 500, body: envelope })).not.toThrow();
    expect(() => v.checkResponse({ method: "GET", path: "/v1/jobs", status: 500, body: { ...envelope, error: { code: "nope" } } })).toThrow(
      /at \/error/,
    );
  });
});

describe("the typed client against the document", () => {
  type Doc = {
    paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }>; responses: Record<string, unknown> }>>;
  };
  const operationOf = (doc: Doc, method: string, path: string) => doc.paths[path]?.[method.toLowerCase()];

  it("every route the client calls is an operation of the document, with the same success status", async () => {
    const { OPERATIONS } = await import("../../sdk/client");
    const doc = build() as unknown as Doc;
    for (const [id, op] of Object.entries(OPERATIONS)) {
      const described = operationOf(doc, op.method, op.path);
      expect(described, `${id}: ${op.method} ${op.path}`).toBeDefined();
      expect(Object.keys(described!.responses), id).toContain(String(op.success));
    }
  });

  it("every query parameter the client sends is one the document lists for that operation", async () => {
    const { OPERATIONS } = await import("../../sdk/client");
    const doc = build() as unknown as Doc;
    for (const [id, op] of Object.entries(OPERATIONS)) {
      const listed = (operationOf(doc, op.method, op.path)?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      for (const q of "query" in op ? op.query : []) expect(listed, `${id} sends ?${q}`).toContain(q);
    }
  });
});
