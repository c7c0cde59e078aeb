import { exports } from "cloudflare:workers";
import type { OpenAPIObject, SchemaObject } from "openapi3-ts/oas31";
import { beforeAll, describe, expect, it } from "vitest";
import { SERVICE_TYPES } from "../../contracts/service-types";
import { buildApp } from "../../worker/app";
import { openApiDocument, openApiPath } from "../../worker/openapi/document";
import { listOperations } from "../../worker/openapi/reference-page";
import { call, expectError } from "./helpers/api";
import { createTenant, unique, type Tenant } from "./helpers/tenant";

/**
 * The OpenAPI document served at /v1/openapi.json and its reference page: public, complete (every
 * route of the app, nothing else), and its request schemas say what the routes enforce.
 * test/node/openapi-document.test.ts checks the document against the OpenAPI 3.1 schema.
 */

/** Routes only a local stack has, left out of the document on purpose. */
const UNDOCUMENTED = new Set(["GET /__bench/bare"]);

/** The web console's pages (worker/console) are HTML for people, not API: they call the documented routes. */
const isConsolePage = (path: string) => path === "/console" || path.startsWith("/console/");

/** `METHOD /path/{param}` of every handler the app registers (middleware is registered as ALL). */
function appRoutes(): string[] {
  const keys = buildApp()
    .routes.filter((r) => r.method !== "ALL" && !isConsolePage(r.path))
    .map((r) => `${r.method} ${openApiPath(r.path.length > 1 ? r.path.replace(/\/+$/, "") : r.path)}`);
  return [...new Set(keys)].filter((k) => !UNDOCUMENTED.has(k)).sort();
}

const documentedRoutes = (doc: OpenAPIObject) => listOperations(doc).map((o) => `${o.method.toUpperCase()} ${o.path}`);

/** A path's request body schema, with a top-level $ref followed. */
function bodySchema(doc: OpenAPIObject, method: string, path: string): SchemaObject {
  const op = (doc.paths?.[path] as Record<string, { requestBody?: { content: Record<string, { schema: SchemaObject }> } }>)[method];
  const schema = op?.requestBody?.content["application/json"]?.schema;
  if (!schema) throw new Error(`no body schema for ${method} ${path}`);
  return schema.$ref ? component(doc, schema.$ref) : schema;
}

const component = (doc: OpenAPIObject, ref: string): SchemaObject => doc.components?.schemas?.[ref.split("/").pop() ?? ""] as SchemaObject;

let t: Tenant;
beforeAll(async () => {
  t = await createTenant({ withConnection: false });
});

describe("GET /v1/openapi.json", () => {
  it("answers without an API key", async () => {
    const res = await call("GET", "/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("is the document the Worker builds", async () => {
    const res = await call("GET", "/v1/openapi.json");
    expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });

  it("is an OpenAPI 3.1 document", async () => {
    const res = await call("GET", "/v1/openapi.json");
    expect((res.body as unknown as OpenAPIObject).openapi).toBe("3.1.0");
  });
});

describe("coverage", () => {
  it("describes every route of the app", () => {
    const documented = new Set(documentedRoutes(openApiDocument()));
    expect(appRoutes().filter((r) => !documented.has(r))).toEqual([]);
  });

  it("describes no route the app does not have", () => {
    const routes = new Set(appRoutes());
    expect(documentedRoutes(openApiDocument()).filter((r) => !routes.has(r))).toEqual([]);
  });

  it("gives every operation a tag, a summary and a unique operationId", () => {
    const ops = listOperations(openApiDocument());
    const ids = ops.map((o) => o.operation.operationId);
    expect(ops.filter((o) => !o.operation.tags?.length || !o.operation.summary)).toEqual([]);
    expect(new Set(ids).size).toBe(ops.length);
  });

  it("lists the error envelope answers of every keyed operation: 401, 403, 405 and 500", () => {
    const missing = listOperations(openApiDocument())
      .filter((o) => (o.operation.security ?? []).some((s) => "projectKey" in s || "workspaceKey" in s))
      .filter((o) => ["401", "403", "405", "500"].some((status) => !(status in (o.operation.responses ?? {}))))
      .map((o) => `${o.method} ${o.path}`);
    expect(missing).toEqual([]);
  });
});

describe("GET /docs/reference", () => {
  it("answers HTML without an API key", async () => {
    const res = await fetchPage();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("lists every operation of the document, each under its own anchor with its method and path", async () => {
    const html = await (await fetchPage()).text();
    const absent = listOperations(openApiDocument()).filter(
      (o) => !html.includes(`id="${o.operation.operationId}"`) || !html.includes(`<code>${o.path}</code>`),
    );
    expect(absent.map((o) => `${o.method} ${o.path}`)).toEqual([]);
  });

  it("runs no script and loads nothing from another origin", async () => {
    const html = await (await fetchPage()).text();
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(/i);
  });

  it("links to the reference and the document from GET /", async () => {
    const res = await call<{ reference: string; openapi: string }>("GET", "/");
    expect(res.body.data).toMatchObject({ reference: "/docs/reference", openapi: "/v1/openapi.json" });
  });
});

/** The page is HTML, which `call` (JSON) does not read. */
const fetchPage = (): Promise<Response> => exports.default.fetch(new Request("http://media-jobs.test/docs/reference"));

describe("request schemas match the routes", () => {
  it("POST /v1/jobs: an unknown serviceType is 422 and the document's serviceType values are exactly the service types", async () => {
    const res = await call("POST", "/v1/jobs", { key: t.projectKey, body: { serviceType: "telepathy", input: {} } });
    expectError(res, 422, "validationError");
    const create = bodySchema(openApiDocument(), "post", "/v1/jobs");
    const values = Object.keys(create.discriminator?.mapping ?? {});
    expect(create.discriminator?.propertyName).toBe("serviceType");
    expect(values.sort()).toEqual([...SERVICE_TYPES].sort());
    expect(values).not.toContain("telepathy");
  });

  it("POST /v1/jobs: each variant requires serviceType and input and refuses other fields, as the route does", async () => {
    const res = await call("POST", "/v1/jobs", {
      key: t.projectKey,
      body: { serviceType: "metadata", input: { textSourceId: "txt_x" }, priority: "high" },
    });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toContainEqual({ path: "priority", issue: "notAllowed" });
    const doc = openApiDocument();
    const variant = component(doc, bodySchema(doc, "post", "/v1/jobs").discriminator?.mapping?.["metadata"] ?? "");
    expect(variant.required).toEqual(expect.arrayContaining(["serviceType", "input"]));
    expect(variant.additionalProperties).toBe(false);
    expect(Object.keys(variant.properties ?? {})).not.toContain("priority");
  });

  it("POST /v1/glossary: the fields the document requires are the ones the route refuses without", async () => {
    const missing = await call("POST", "/v1/glossary", { key: t.projectKey, body: { term: unique("term") } });
    expectError(missing, 422, "validationError");
    expect(missing.body.error?.details).toEqual([{ path: "preferred", issue: "required" }]);
    expect(bodySchema(openApiDocument(), "post", "/v1/glossary").required?.sort()).toEqual(["preferred", "term"]);
  });

  it("POST /v1/glossary: a body the document accepts is accepted by the route", async () => {
    const schema = bodySchema(openApiDocument(), "post", "/v1/glossary");
    const body = { term: unique("term"), preferred: "Preferred" };
    expect(Object.keys(body).every((k) => k in (schema.properties ?? {}))).toBe(true);
    const res = await call("POST", "/v1/glossary", { key: t.projectKey, body });
    expect(res.status).toBe(201);
  });

  it("POST /v1/glossary: a field the document does not list is refused (additionalProperties: false)", async () => {
    expect(bodySchema(openApiDocument(), "post", "/v1/glossary").additionalProperties).toBe(false);
    const res = await call("POST", "/v1/glossary", { key: t.projectKey, body: { term: unique("term"), preferred: "P", note: "x" } });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "note", issue: "notAllowed" }]);
  });
});
