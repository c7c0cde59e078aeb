import { Validator } from "@seriousme/openapi-schema-validator";
import { beforeAll, describe, expect, it } from "vitest";

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

describe("the typed client against the document", () => {
  type Doc = {
    paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }>; responses: Record<string, unknown> }>>;
  };
  const operationOf = (doc: Doc, method: string, path: string) => doc.paths[path]?.[method.toLowerCase()];

  it("every route the client calls is an operation of the document, with the same success status", async () => {
    const { OPERATIONS } = await import("../../contracts/client");
    const doc = build() as unknown as Doc;
    for (const [id, op] of Object.entries(OPERATIONS)) {
      const described = operationOf(doc, op.method, op.path);
      expect(described, `${id}: ${op.method} ${op.path}`).toBeDefined();
      expect(Object.keys(described!.responses), id).toContain(String(op.success));
    }
  });

  it("every query parameter the client sends is one the document lists for that operation", async () => {
    const { OPERATIONS } = await import("../../contracts/client");
    const doc = build() as unknown as Doc;
    for (const [id, op] of Object.entries(OPERATIONS)) {
      const listed = (operationOf(doc, op.method, op.path)?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      for (const q of "query" in op ? op.query : []) expect(listed, `${id} sends ?${q}`).toContain(q);
    }
  });
});
