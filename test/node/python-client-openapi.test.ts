import { beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS as TYPESCRIPT_OPERATIONS } from "../../sdk/client/operations";
import { pointerToken } from "../support/openapi-validator";
import { pythonJson } from "../support/python-client";

/**
 * The Python client (sdk/python) checked against the OpenAPI document the Worker serves: every
 * operation of its table exists with that method, path, success status, query parameters, headers
 * and auth, and its dataclasses have the fields of the schemas they model (same JSON names, types,
 * nullability, enum values; a field the document may leave out has a default). The client's side
 * comes from sdk/python/tests/describe_client.py, run by python3.
 */

/** Worker code, type-checked by tsconfig.worker.json: a computed specifier keeps it out of this project's check. */
const DOCUMENT_MODULE = "../../worker/openapi/document";

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: unknown;
  items?: Schema;
  parameters?: Array<{ name: string; in: string }>;
  [k: string]: unknown;
};

interface PyOperation {
  method: string;
  path: string;
  auth: "project" | "none";
  success: number;
  query: string[];
  retry: boolean;
  headers: string[];
}
interface PyField {
  name: string;
  json: string;
  kinds: string[];
  enum: unknown[] | null;
  hasDefault: boolean;
  fromEnvelope: boolean;
}
interface PyContract {
  operations: Record<string, PyOperation>;
  models: Record<string, PyField[]>;
}

let doc: Schema;
let client: PyContract;
beforeAll(async () => {
  const { buildOpenApiDocument } = (await import(DOCUMENT_MODULE)) as { buildOpenApiDocument(): Schema };
  doc = buildOpenApiDocument();
  client = await pythonJson<PyContract>(["tests/describe_client.py"]);
});

/** The node at a JSON pointer, following `$ref`s on the way and at the end. */
function at(pointer: string): Schema {
  let node: unknown = doc;
  for (const raw of pointer.replace(/^#?\//, "").split("/")) {
    node = deref(node as Schema)[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (node === undefined) throw new Error(`nothing at ${pointer} (${raw})`);
  }
  return deref(node as Schema);
}

function deref(node: Schema): Schema {
  return node.$ref ? at(node.$ref) : node;
}

const operationPointer = (method: string, path: string) => `/paths/${pointerToken(path)}/${method.toLowerCase()}`;

/** The `data` of an operation's success answer. */
const dataOf = (method: string, path: string, status = 200) =>
  `${operationPointer(method, path)}/responses/${status}/content/application~1json/schema/properties/data`;

const TRANSCRIPT = dataOf("GET", "/v1/transcriptions/{transcriptionId}");
const CLIPS = dataOf("GET", "/v1/clip-generations/{clipGenerationId}");
const PROGRESS = dataOf("GET", "/v1/jobs/{jobId}/progress");
const WORKFLOW = dataOf("GET", "/v1/workflows/{workflowId}");
const PRESET = dataOf("GET", "/v1/presets/{presetId}");

/** Each model of the Python client and the schema it reads, by JSON pointer into the document. */
const MODEL_SCHEMAS: Record<string, string> = {
  Job: "/components/schemas/Job",
  ErrorInfo: "/components/schemas/Job/properties/error",
  JobLastError: "/components/schemas/Job/properties/lastError",
  JobProgress: PROGRESS,
  ProgressEntry: `${PROGRESS}/properties/progress/items`,
  AttemptHistory: `${PROGRESS}/properties/attemptHistory/items`,
  WebhookDelivery: `${dataOf("GET", "/v1/jobs/{jobId}/webhook-deliveries")}/items`,
  TranscriptRecord: TRANSCRIPT,
  Speaker: `${TRANSCRIPT}/properties/speakers/items`,
  Diarization: `${TRANSCRIPT}/properties/diarization`,
  Segment: `${TRANSCRIPT}/properties/segments/items`,
  Word: `${TRANSCRIPT}/properties/segments/items/properties/words/items`,
  TranscriptOutputKeys: `${TRANSCRIPT}/properties/outputKeys`,
  ClipGenerationRecord: CLIPS,
  Clip: `${CLIPS}/properties/clips/items`,
  RedactedAudio: `${CLIPS}/properties/redactedAudio`,
  SearchResponse: dataOf("POST", "/v1/catalog/search"),
  SearchHit: `${dataOf("POST", "/v1/catalog/search")}/properties/results/items`,
  Workflow: WORKFLOW,
  WorkflowStep: `${WORKFLOW}/properties/steps/items`,
  WorkflowTrigger: `${WORKFLOW}/properties/trigger`,
  Preset: PRESET,
  PresetStep: `${PRESET}/properties/steps/items`,
};

/** Models the document has no schema for, and why; every other model must be in MODEL_SCHEMAS. */
const NOT_IN_DOCUMENT: Record<string, string> = {
  Pagination: "the list envelope's metadata.pagination, described in prose",
  JobPage: "the client's own pairing of a list's data and pagination",
  WorkflowPage: "the client's own pairing of a list's data and pagination",
  TranscriptFile: "an export's bytes and headers, not JSON",
  TranscriptSource: "a transcript record property the document leaves open (additionalProperties)",
  VisualChunk: "a transcript record property the document leaves open (additionalProperties)",
  SpeakerName: "inside a search hit, which the document leaves open",
  SearchGroup: "the search answer's groups, which the document leaves untyped",
  SearchGroupHit: "inside a search group",
  JobWebhookEvent: "webhook bodies are not in the document",
  WorkflowWebhookEvent: "webhook bodies are not in the document",
};

function schemaKinds(schema: Schema): { kinds: string[]; nullable: boolean } {
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  return { kinds: types.filter((t) => t !== "null"), nullable: types.includes("null") };
}

/** Where a Python field and its schema property disagree; empty when they agree. */
function fieldMismatches(field: PyField, property: Schema, required: boolean): string[] {
  const out: string[] = [];
  const { kinds, nullable } = schemaKinds(property);
  const pyKinds = field.kinds.filter((k) => k !== "null");
  const compatible = (k: string) => pyKinds.includes("any") || pyKinds.includes(k) || (k === "integer" && pyKinds.includes("number"));
  if (kinds.length > 0 && !kinds.every(compatible)) out.push(`is ${pyKinds.join("|")}, the document says ${kinds.join("|")}`);
  if (kinds.length === 0 && !pyKinds.includes("any") && Object.keys(property).some((k) => k !== "description"))
    out.push(`is ${pyKinds.join("|")}, the document gives no type`);
  if (nullable && !field.kinds.includes("null")) out.push("cannot be None, the document says it may be null");
  if (!required && !field.hasDefault) out.push("has no default, the document says it may be absent");
  const values = property.enum?.filter((v) => v !== null);
  if (values && JSON.stringify([...(field.enum ?? [])].sort()) !== JSON.stringify([...values].sort()))
    out.push(`takes ${JSON.stringify(field.enum)}, the document's enum is ${JSON.stringify(values)}`);
  return out;
}

describe("the Python client's operation table against the OpenAPI document", () => {
  it("every operation exists with its method and path, and answers its success status", () => {
    const missing = Object.entries(client.operations).flatMap(([id, op]) => {
      const operation = (doc.paths as Record<string, Record<string, Schema>>)[op.path]?.[op.method.toLowerCase()];
      if (!operation) return [`${id}: ${op.method} ${op.path} is not in the document`];
      const responses = operation["responses"] as Record<string, unknown>;
      return String(op.success) in responses ? [] : [`${id}: ${op.method} ${op.path} documents no ${op.success}`];
    });
    expect(Object.keys(client.operations).length).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });

  it("covers every route the TypeScript client calls, with the same query parameters", () => {
    const python = Object.values(client.operations);
    const missing = Object.entries(TYPESCRIPT_OPERATIONS).flatMap(([id, ts]) => {
      const py = python.find((op) => op.method === ts.method && op.path === ts.path);
      if (!py) return [`${id}: ${ts.method} ${ts.path}`];
      const query: readonly string[] = "query" in ts ? ts.query : [];
      return query.filter((q) => !py.query.includes(q)).map((q) => `${id}: query ${q}`);
    });
    expect(missing).toEqual([]);
  });

  it("every query parameter and header the client sends is a parameter of its operation", () => {
    const undeclared = Object.entries(client.operations).flatMap(([id, op]) => {
      const params = at(operationPointer(op.method, op.path)).parameters ?? [];
      const has = (name: string, where: string) => params.some((p) => p.in === where && p.name.toLowerCase() === name.toLowerCase());
      return [
        ...op.query.filter((q) => !has(q, "query")).map((q) => `${id}: query ${q}`),
        ...op.headers.filter((h) => !has(h, "header")).map((h) => `${id}: header ${h}`),
        // The client sends its read-your-writes bookmark with every call; reads are where it counts
        // (writes always see the current data, docs/api.md "Read-your-writes").
        ...(op.method === "GET" && !has("x-d1-bookmark", "header") ? [`${id}: header x-d1-bookmark`] : []),
      ];
    });
    expect(undeclared).toEqual([]);
  });

  it("an operation sent with a key takes a project key or console session, and one sent without needs none", () => {
    const wrong = Object.entries(client.operations).flatMap(([id, op]) => {
      const security = (at(operationPointer(op.method, op.path))["security"] ?? []) as Array<Record<string, unknown>>;
      const takesKey = security.some((s) => "projectKey" in s || "consoleSession" in s);
      if (op.auth === "project" && !takesKey) return [`${id} sends a key the operation does not take`];
      if (op.auth === "none" && security.length > 0) return [`${id} sends no key to an operation that needs one`];
      return [];
    });
    expect(wrong).toEqual([]);
  });
});

describe("the Python client's dataclasses against the document's schemas", () => {
  it("every model is mapped to its schema, or says why the document has none", () => {
    const unmapped = Object.keys(client.models).filter((m) => !(m in MODEL_SCHEMAS) && !(m in NOT_IN_DOCUMENT));
    expect(unmapped).toEqual([]);
  });

  it("every property a schema names is a field of its model, with the same type, nullability and values", () => {
    const wrong = Object.entries(MODEL_SCHEMAS).flatMap(([model, pointer]) => {
      const schema = at(pointer);
      const fields = client.models[model];
      if (!fields) return [`${model}: no such model in the client`];
      return Object.entries(schema.properties ?? {}).flatMap(([name, property]) => {
        const field = fields.find((f) => f.json === name && !f.fromEnvelope);
        if (!field) return [`${model}.${name}: no field`];
        const required = (schema.required ?? []).includes(name);
        return fieldMismatches(field, deref(property), required).map((m) => `${model}.${field.name} ${m}`);
      });
    });
    expect(wrong).toEqual([]);
  });

  it("a model of a closed schema (one without additionalProperties) has no field the schema lacks", () => {
    const extra = Object.entries(MODEL_SCHEMAS).flatMap(([model, pointer]) => {
      const schema = at(pointer);
      if (schema.additionalProperties !== undefined) return [];
      const names = Object.keys(schema.properties ?? {});
      return (client.models[model] ?? []).filter((f) => !f.fromEnvelope && !names.includes(f.json)).map((f) => `${model}.${f.json}`);
    });
    expect(extra).toEqual([]);
  });
});
