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
