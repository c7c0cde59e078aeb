import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

/**
 * The OpenAPI document as a client generated from it reads it: each schema compiled by a standard
 * JSON Schema 2020-12 validator (Ajv, with ajv-formats), as OpenAPI 3.1 defines schemas. Used by
 * the document's own tests (its examples against their schemas) and by the end-to-end tests, which
 * check every response the API sends against its operation and status in the served document.
 *
 * The whole document is added to Ajv under one id, so a schema is compiled by its JSON pointer and
 * every `#/components/...` reference in it resolves in the document itself. Compiled schemas are
 * cached by pointer.
 */

type Json = Record<string, unknown>;

export interface OpenApiDocumentShape {
  paths?: Record<string, Record<string, unknown>>;
  components?: Json;
}

const DOCUMENT_ID = "https://media-jobs.invalid/openapi.json";
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/** `~` and `/` escaped as a JSON pointer token (RFC 6901). */
export const pointerToken = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");

export interface Mismatch {
  /** Where in the value (a JSON pointer; "" is the value itself). */
  at: string;
  message: string;
  /** Where in the schema the rule that failed lives. */
  schemaPath: string;
}

export interface ResponseCheck {
  method: string;
  /** The path as sent, with its query if any. */
  path: string;
  status: number;
  body: unknown;
}

export class OpenApiValidator {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ template: string; pattern: RegExp; literals: number }>;

  constructor(readonly doc: OpenApiDocumentShape) {
    // strict off: the document also holds OpenAPI's own keywords (discriminator, example) beside JSON Schema's.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addSchema(doc as Json, DOCUMENT_ID);
    this.templates = Object.keys(doc.paths ?? {}).map((template) => {
      const parts = template.split("/");
      const pattern = new RegExp(
        `^${parts.map((p) => (/^\{.+\}$/.test(p) ? "[^/]+" : p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}$`,
      );
      return { template, pattern, literals: parts.filter((p) => !/^\{.+\}$/.test(p)).length };
    });
  }

  /** The mismatches of `value` against the schema at `pointer` (`#/components/schemas/Job`, …); [] when it is valid. */
  mismatches(pointer: string, value: unknown): Mismatch[] {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
      this.compiled.set(pointer, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e: ErrorObject) => ({
      at: e.instancePath,
      message: `${e.message ?? e.keyword}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""}`,
      schemaPath: e.schemaPath,
    }));
  }

  /** The path template a request path matches: literal segments win over parameters (`/v1/jobs/policy` before `/v1/jobs/{jobId}`). */
  template(path: string): string | null {
    const bare = path.split("?")[0] ?? path;
    const found = this.templates.filter((t) => t.pattern.test(bare)).sort((a, b) => b.literals - a.literals)[0];
    return found?.template ?? null;
  }

  /**
   * The pointer to the JSON schema of a response (following a `$ref` to `#/components/responses`),
   * or why there is none: no such operation, no such status, or not JSON.
   */
  responseSchema(method: string, path: string, status: number): { pointer: string } | { missing: string } {
    const template = this.template(path);
    if (!template) return { missing: `no path of the document matches ${path}` };
    const m = method.toLowerCase();
    const operation = this.doc.paths?.[template]?.[m] as { responses?: Record<string, Json> } | undefined;
    if (!operation || !(METHODS as readonly string[]).includes(m))
      return { missing: `${template} has no ${method.toUpperCase()} operation` };
    const responses = operation.responses ?? {};
    const key = String(status) in responses ? String(status) : `${String(status)[0]}XX` in responses ? `${String(status)[0]}XX` : "default";
    let response = responses[key];
    let pointer = `#/paths/${pointerToken(template)}/${m}/responses/${key}`;
    if (!response) return { missing: `${method.toUpperCase()} ${template} documents no ${status} response` };
    const ref = response["$ref"];
    if (typeof ref === "string") {
      pointer = ref;
      response = this.resolve(ref);
    }
    const content = response?.["content"] as Record<string, { schema?: unknown }> | undefined;
    if (!content?.["application/json"]?.schema) return { missing: `${method.toUpperCase()} ${template} ${status} has no JSON schema` };
    return { pointer: `${pointer}/content/${pointerToken("application/json")}/schema` };
  }

  /** Throws, naming the operation and the JSON pointer of each mismatch, when a response is not what the document says. */
  checkResponse(r: ResponseCheck): void {
    const found = this.responseSchema(r.method, r.path, r.status);
    const what = `${r.method.toUpperCase()} ${r.path} → ${r.status}`;
    if ("missing" in found) throw new Error(`${what}: not in the OpenAPI document (${found.missing})`);
    const wrong = this.mismatches(found.pointer, r.body);
    if (wrong.length > 0)
      throw new Error(
        `${what}: the response does not match the OpenAPI document (${found.pointer}):\n` +
          wrong.map((w) => `  at ${w.at || "/"}: ${w.message} (schema ${w.schemaPath})`).join("\n"),
      );
  }

  private resolve(ref: string): Json | undefined {
    let node: unknown = this.doc;
    for (const token of ref.replace(/^#\//, "").split("/")) {
      node = (node as Json | undefined)?.[token.replace(/~1/g, "/").replace(/~0/g, "~")];
    }
    return node as Json | undefined;
  }
}

/** Every example in the document (media types' `example` and `examples.*.value`), with the pointer of the schema it illustrates. */
export function documentExamples(doc: OpenApiDocumentShape): Array<{ where: string; schema: string; value: unknown }> {
  const out: Array<{ where: string; schema: string; value: unknown }> = [];
  const visitContent = (base: string, content: unknown) => {
    for (const [type, media] of Object.entries((content ?? {}) as Record<string, Json>)) {
      if (!media["schema"]) continue;
      const at = `${base}/content/${pointerToken(type)}`;
      if ("example" in media) out.push({ where: `${at}/example`, schema: `${at}/schema`, value: media["example"] });
      for (const [name, ex] of Object.entries((media["examples"] ?? {}) as Record<string, Json>))
        if ("value" in ex) out.push({ where: `${at}/examples/${pointerToken(name)}`, schema: `${at}/schema`, value: ex["value"] });
    }
  };
  for (const [template, item] of Object.entries(doc.paths ?? {}))
    for (const m of METHODS) {
      const op = item[m] as { requestBody?: Json; responses?: Record<string, Json> } | undefined;
      if (!op) continue;
      const base = `#/paths/${pointerToken(template)}/${m}`;
      if (op.requestBody) visitContent(`${base}/requestBody`, op.requestBody["content"]);
      for (const [status, response] of Object.entries(op.responses ?? {})) visitContent(`${base}/responses/${status}`, response["content"]);
    }
  for (const [name, response] of Object.entries((doc.components?.["responses"] ?? {}) as Record<string, Json>))
    visitContent(`#/components/responses/${pointerToken(name)}`, response["content"]);
  return out;
}
