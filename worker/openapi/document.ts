import { BOOKMARK_HEADER } from "../../contracts/d1-bookmark";
import { OpenAPIRegistry, OpenApiGeneratorV31, zodToOpenAPIRegistry, type RouteConfig } from "@asteasolutions/zod-to-openapi";
import type { OpenAPIObject, OperationObject, ResponseObject } from "openapi3-ts/oas31";
import { z } from "zod";
import { JobSchema } from "../../contracts/job";
import { CreateJobSchema } from "../../contracts/job-requests";
import { codeToStatus, ErrorCodeSchema, errorBody, type ErrorCode } from "../errors";
import { accountOperations } from "./areas/accounts";
import { adminOperations } from "./areas/admin";
import { consoleOperations } from "./areas/console";
import { jobOperations } from "./areas/jobs";
import { metaOperations } from "./areas/meta";
import { openAiOperations } from "./areas/openai";
import { policyOperations } from "./areas/policy";
import { EXAMPLE_ID } from "./examples";
import { runnerOperations } from "./areas/runner";
import { storageConnectionOperations } from "./areas/storage-connections";
import { yourDataOperations } from "./areas/your-data";
import { workflowOperations } from "./areas/workflows";
import type { Access, OperationDoc } from "./operation";
import { SERVICE_OPERATIONS } from "./services/index";

/**
 * The OpenAPI 3.1 document of the whole app, generated from the zod schemas the routes validate
 * requests with (the operation lists hold the same schema objects), plus the spec's envelopes.
 */

/** Every described route: the platform areas, then each service's record routes. */
export const ALL_OPERATIONS: readonly OperationDoc[] = [
  ...metaOperations,
  ...policyOperations,
  ...jobOperations,
  ...accountOperations,
  ...consoleOperations,
  ...storageConnectionOperations,
  ...yourDataOperations,
  ...workflowOperations,
  ...openAiOperations,
  ...Object.values(SERVICE_OPERATIONS).flat(),
  ...adminOperations,
  ...runnerOperations,
];

/** Tags in reading order, with what each groups. */
export const TAGS = [
  { name: "Meta", description: "The service index, health and this documentation. No key needed." },
  { name: "Jobs", description: "Submit work of every service type, follow it, cancel it." },
  { name: "Transcripts", description: "Transcripts, segment edits and the project glossary." },
  { name: "Clips", description: "Clip generations and their rendered clips." },
  { name: "Thumbnails", description: "Thumbnails picked from a transcript's video." },
  { name: "Understanding", description: "Generated metadata and summaries." },
  { name: "Catalog", description: "Search over the project's indexed transcripts." },
  { name: "Translation and dubbing", description: "Translations per language and dubbed media." },
  { name: "Voices", description: "Voices for dubbing and synthesis." },
  { name: "Your data", description: "Deleting what you sent and what was made from it, retention, and the audit log of every deletion." },
  { name: "Voice consents", description: "Consents to clone a speaker's voice, required by a project's voiceCloning.requireConsent." },
  {
    name: "Workflows",
    description: "Steps that run as jobs when the ones they wait for complete, presets saved per project, and upload triggers.",
  },
  { name: "Storage connections", description: "The S3-compatible stores jobs read sources from and write outputs to." },
  { name: "Workspace", description: "The key's workspace, plan and usage." },
  { name: "Projects", description: "Projects, their webhook settings and API keys (workspace keys)." },
  { name: "Console", description: "Sessions of the web console: people sign in with email and password; admins invite and manage users." },
  { name: "Operator", description: "Operator routes under /admin/v1, behind the ADMIN_SECRET bearer token." },
  {
    name: "Runner protocol",
    description: "The gpu-runner's protocol under /runner/v1, behind each runner's own token (minted under /admin/v1/runner-tokens).",
  },
] as const;

export const SECURITY_SCHEMES = {
  projectKey: { type: "http", scheme: "bearer", description: "A project API key: `Authorization: Bearer sk_prj_…`." },
  workspaceKey: { type: "http", scheme: "bearer", description: "A workspace API key: `Authorization: Bearer sk_wsp_…`." },
  consoleSession: { type: "http", scheme: "bearer", description: "A console session's key, from POST /v1/console/sessions." },
  consoleCookie: {
    type: "apiKey",
    in: "cookie",
    name: "__Host-media_jobs_console",
    description:
      "The console's sign-in cookie (POST /v1/console/sign-in; `media_jobs_console` on loopback). State-changing requests also need `X-CSRF-Token`.",
  },
  adminSecret: { type: "http", scheme: "bearer", description: "The operator's ADMIN_SECRET (a Worker secret)." },
  runnerToken: {
    type: "http",
    scheme: "bearer",
    description: "A runner token (`mjr_…`), minted by the operator with POST /admin/v1/runner-tokens.",
  },
  eventSecret: {
    type: "http",
    scheme: "bearer",
    description:
      "A storage connection's event secret (`whsec_…`, answered once by PUT …/triggers), as MinIO's webhook target sends its auth token; or `X-Media-Jobs-Signature: sha256=<hex HMAC-SHA256 of the body>`.",
  },
} as const;

const SECURITY: Record<Access, Array<Record<string, string[]>>> = {
  public: [],
  signed: [{ eventSecret: [] }],
  // The guard lets a console session act for its project wherever a project key may.
  project: [{ projectKey: [] }, { consoleSession: [] }, { consoleCookie: [] }],
  workspace: [{ workspaceKey: [] }],
  anyKey: [{ projectKey: [] }, { workspaceKey: [] }, { consoleSession: [] }, { consoleCookie: [] }],
  console: [{ consoleSession: [] }, { consoleCookie: [] }],
  admin: [{ adminSecret: [] }],
  runner: [{ runnerToken: [] }],
};

const ErrorDetailSchema = z.object({ path: z.string(), issue: z.string() });
/** The spec's error envelope, as worker/errors.ts `errorBody` writes it. */
export const ErrorEnvelopeSchema = z.object({
  data: z.null(),
  error: z.object({ code: ErrorCodeSchema, message: z.string(), details: z.array(ErrorDetailSchema) }),
  metadata: z.record(z.string(), z.unknown()),
});

type Example = [message: string, details: Array<{ path: string; issue: string }>, metadata?: Record<string, unknown>];

/** What each error says in the examples (the handlers' own wording); `errorBody` builds the envelope around it. */
const ERROR_EXAMPLES: Record<ErrorCode, Example> = {
  validationError: [
    "input.sourceKey: Invalid input: expected string, received undefined",
    [{ path: "input.sourceKey", issue: "required" }],
  ],
  notFound: [`job not found: ${EXAMPLE_ID.job}`, [{ path: "jobId", issue: `notFound:${EXAMPLE_ID.job}` }]],
  conflict: [`job ${EXAMPLE_ID.job} is completed and can no longer be cancelled`, [{ path: "jobId", issue: "status:completed" }]],
  unauthorized: ["missing Authorization header; send `Authorization: Bearer <API_KEY>`", []],
  forbidden: ["API key lacks permission job:create", [{ path: "authorization", issue: "missingPermission:job:create" }]],
  methodNotAllowed: ["DELETE is not allowed on /v1/jobs; allowed: GET, HEAD, POST", [{ path: "method", issue: "methodNotAllowed" }]],
  payloadTooLarge: ["request body exceeds 1048576 bytes", []],
  unsupportedMediaType: ["request body must be JSON: send Content-Type: application/json", []],
  rateLimited: ["too many requests; retry after the time in Retry-After", []],
  quotaExceeded: [
    "free plan limit reached for transcription_jobs: 10 of 10 used this billing period, this request needs 1; the limit resets at 2026-12-01T00:00:00.000Z",
    [{ path: "serviceType", issue: "quotaExceeded:transcription_jobs" }],
    { quota: { meter: "transcription_jobs", limit: 10, used: 10, requested: 1, resetsAt: "2026-12-01T00:00:00.000Z" } },
  ],
  serviceNotAvailable: [
    "service type dubbing is not available on this deployment yet: its pipeline is not built; the request was valid and nothing was charged",
    [{ path: "serviceType", issue: "serviceNotAvailable:dubbing" }],
  ],
  idempotencyKeyReused: [
    "this Idempotency-Key was already used with a different request body",
    [{ path: "headers.Idempotency-Key", issue: "bodyMismatch" }],
  ],
  jobFailed: [
    `the transcription job ${EXAMPLE_ID.job} ended failed (unsupported_media: source has no audio stream to transcribe)`,
    [{ path: "file", issue: "unsupported_media" }],
    { jobId: EXAMPLE_ID.job },
  ],
  leaseLost: ["lease lost; stop work on this task", []],
  protocolError: ["service transcription has no runner call catalog.write", []],
  internalError: ["internal error; the request can be retried", []],
};

/** Headers an error answer carries (worker/errors.ts `unauthorized`, worker/accounts/credits.ts). */
const ERROR_HEADERS: Partial<Record<number, ResponseObject["headers"]>> = {
  401: { "WWW-Authenticate": { description: 'Always `Bearer realm="media-jobs"`.', schema: { type: "string" } } },
  405: { Allow: { description: "The methods the path has.", schema: { type: "string" } } },
  429: { "Retry-After": { description: "Seconds until the limit resets.", schema: { type: "integer" } } },
};

/** One response per status, listing every code it can carry, each with an example envelope. */
function errorResponse(codes: readonly ErrorCode[]): ResponseObject {
  const headers = ERROR_HEADERS[codeToStatus(codes[0] as ErrorCode)];
  return {
    description: `Error: ${codes.map((c) => `\`${c}\``).join(", ")}.`,
    ...(headers ? { headers } : {}),
    content: {
      "application/json": {
        schema: { $ref: "#/components/schemas/ErrorEnvelope" },
        examples: Object.fromEntries(codes.map((c) => [c, { value: errorBody(c, ...ERROR_EXAMPLES[c]) }])),
      },
    },
  };
}

/** The errors every route of its kind can give, on top of those its description names. */
function errorCodes(op: OperationDoc): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (["project", "workspace", "anyKey", "console"].includes(op.access)) codes.add("unauthorized").add("forbidden");
  if (op.access === "admin" || op.access === "runner" || op.access === "signed") codes.add("unauthorized");
  if (op.body || op.multipartBody) codes.add("unsupportedMediaType").add("payloadTooLarge").add("validationError");
  if (op.query) codes.add("validationError");
  for (const c of op.errors ?? []) codes.add(c);
  return [...codes];
}

/** `/v1/jobs/:jobId` → `/v1/jobs/{jobId}`. */
export const openApiPath = (honoPath: string): string => honoPath.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

const pathParams = (honoPath: string): string[] => [...honoPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] as string);

export const operationId = (op: OperationDoc): string =>
  op.method +
  op.path
    .split("/")
    .filter(Boolean)
    .map((s) => s.replace(/^:/, "by-"))
    .join("-")
    .replace(/[^A-Za-z0-9]+(.)/g, (_, ch: string) => ch.toUpperCase())
    .replace(/^./, (ch) => ch.toUpperCase());

function routeConfig(op: OperationDoc): RouteConfig {
  const params = pathParams(op.path);
  const status = op.status ?? 200;
  // Every answer carries the session's bookmark (worker/http/d1-session.ts); the public API's reads start from one sent.
  const bookmarkOut = {
    [BOOKMARK_HEADER]: {
      description:
        'The D1 bookmark of this request\'s session: send the newest one you hold with your next request to read your own writes (docs/api.md, "Read-your-writes").',
      schema: { type: "string" as const },
    },
  };
  const headers = [
    ...(op.headers ?? []),
    ...(op.method === "get" && op.path.startsWith("/v1/")
      ? [
          {
            name: BOOKMARK_HEADER,
            description:
              "The newest `x-d1-bookmark` this client was answered: the read then sees at least what that answer's request wrote.",
          },
        ]
      : []),
  ];
  const success = op.raw
    ? {
        description: op.raw.description,
        headers: {
          ...bookmarkOut,
          ...Object.fromEntries(
            Object.entries(op.raw.headers ?? {}).map(([name, description]) => [name, { description, schema: { type: "string" as const } }]),
          ),
        },
        content: Object.fromEntries([op.raw.contentType].flat().map((type) => [type, { schema: { type: "string" as const } }])),
      }
    : {
        headers: bookmarkOut,
        description: op.dataDescription ?? "Success: the `{ data, metadata }` envelope.",
        content: {
          "application/json": {
            schema: z.object({
              data: op.data ?? z.record(z.string(), z.unknown()),
              metadata: z.record(z.string(), z.unknown()).describe(op.metadataDescription ?? "Empty unless the route says otherwise."),
            }),
            ...(op.dataExample !== undefined ? { example: { data: op.dataExample, metadata: {} } } : {}),
          },
        },
      };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(op)) byStatus.set(codeToStatus(code), [...(byStatus.get(codeToStatus(code)) ?? []), code]);
  const description = [op.description, op.permission ? `Requires the permission \`${op.permission}\`.` : undefined]
    .filter(Boolean)
    .join("\n\n");
  return {
    method: op.method,
    path: openApiPath(op.path),
    operationId: operationId(op),
    tags: [op.tag],
    summary: op.summary,
    ...(description ? { description } : {}),
    security: SECURITY[op.access],
    ...(op.permission ? { "x-permission": op.permission } : {}),
    request: {
      ...(params.length > 0
        ? {
            params: z.object(
              Object.fromEntries(
                params.map((p) => [
                  p,
                  z
                    .string()
                    .min(1)
                    .describe(op.params?.[p] ?? p),
                ]),
              ),
            ),
          }
        : {}),
      ...(op.query ? { query: op.query } : {}),
      ...(headers.length > 0
        ? { headers: z.object(Object.fromEntries(headers.map((h) => [h.name, z.string().max(255).optional().describe(h.description)]))) }
        : {}),
      ...(op.body
        ? {
            body: {
              required: true,
              content: { "application/json": { schema: op.body, ...(op.bodyExample !== undefined ? { example: op.bodyExample } : {}) } },
            },
          }
        : {}),
      ...(op.multipartBody ? { body: { required: true, content: { "multipart/form-data": { schema: op.multipartBody } } } } : {}),
    },
    responses: {
      [status]: success,
      ...(op.accepted ? { 202: acceptedResponse(op.accepted, bookmarkOut) } : {}),
      ...(op.alsoStatus ? { [op.alsoStatus]: success } : {}),
      ...Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([s, codes]) => [s, errorResponse(codes)])),
      405: { $ref: "#/components/responses/MethodNotAllowed" },
      500: { $ref: "#/components/responses/InternalError" },
    },
  };
}

/** The 202 of an operation with `accepted`: the envelope around its data, with the headers it names. */
function acceptedResponse(accepted: NonNullable<OperationDoc["accepted"]>, bookmarkOut: ResponseObject["headers"]) {
  return {
    description: accepted.description,
    headers: {
      ...bookmarkOut,
      ...Object.fromEntries(
        Object.entries(accepted.headers).map(([name, description]) => [name, { description, schema: { type: "string" as const } }]),
      ),
    },
    content: { "application/json": { schema: z.object({ data: accepted.data, metadata: z.record(z.string(), z.unknown()) }) } },
  };
}

const pascal = (s: string) => s.replace(/(^|_)([a-z])/g, (_, __, ch: string) => ch.toUpperCase());

/**
 * Names the shared schemas so they become components: the job, the error envelope, and each
 * service type's create request (so POST /v1/jobs reads as a oneOf with a `serviceType`
 * discriminator). zod-to-openapi reads component names from its own registry; adding them there
 * leaves the contract schemas themselves untouched.
 */
function nameComponents(): void {
  const name = (schema: z.ZodType, refId: string) => zodToOpenAPIRegistry.add(schema, { _internal: { refId } });
  name(JobSchema, "Job");
  name(ErrorEnvelopeSchema, "ErrorEnvelope");
  name(ErrorCodeSchema, "ErrorCode");
  name(CreateJobSchema, "CreateJobRequest");
  for (const variant of CreateJobSchema.options) name(variant, `${pascal(variant.shape.serviceType.value)}JobRequest`);
}

export function buildOpenApiDocument(): OpenAPIObject {
  nameComponents();
  const registry = new OpenAPIRegistry();
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) registry.registerComponent("securitySchemes", name, { ...scheme });
  registry.registerComponent("responses", "MethodNotAllowed", {
    ...errorResponse(["methodNotAllowed"]),
    description: "The path exists but not with this method; the `Allow` header lists the methods it has.",
  });
  registry.registerComponent("responses", "InternalError", {
    ...errorResponse(["internalError"]),
    description: "An unexpected failure; the request can be retried.",
  });
  for (const op of ALL_OPERATIONS) registry.registerPath(routeConfig(op));
  // The envelope is referenced from hand-built error responses, so the generator is told to emit it.
  const doc = new OpenApiGeneratorV31([...registry.definitions, { type: "schema", schema: ErrorEnvelopeSchema }]).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "media-jobs API",
      version: "v1",
      description:
        "Media processing jobs (transcription, clips, thumbnails, metadata, catalog search, summaries, translation, dubbing, voices) " +
        "on your own S3-compatible storage. Every answer is JSON in the `{ data, metadata }` envelope; errors answer " +
        "`{ data: null, error: { code, message, details[] }, metadata }`. See docs/api.md for the rules behind each route.",
    },
    servers: [{ url: "/", description: "This deployment" }],
    tags: TAGS.map((t) => ({ ...t })),
  });
  for (const op of ALL_OPERATIONS) if (op.queryNotes) describeQuery(doc, op, op.queryNotes);
  admitNullInEnums(doc);
  return doc;
}

/** Keys whose values are data, not schemas: left as they are. */
const DATA_KEYS = new Set(["example", "examples", "default", "const", "enum"]);
/** Keys whose values map names to schemas or objects holding them: a property (or a response) may be called `default` or `enum`. */
const NAMED_SCHEMAS = new Set([
  "properties",
  "patternProperties",
  "dependentSchemas",
  "$defs",
  "schemas",
  "responses",
  "headers",
  "content",
  "paths",
]);

/**
 * zod-to-openapi 9.1.0 renders a nullable literal (`z.literal("graceful").nullable()`, a Job's
 * `cancelMode`) as `type: ["string", "null"], enum: ["graceful"]`. JSON Schema checks `enum` on its
 * own, so a standard validator (and every client generated with one) refuses the `null` the API
 * sends. Its enums of nullable schemas do list null (`z.enum([...]).nullable()`); this gives every
 * schema whose type admits null the same, wherever the generator left it out.
 */
function admitNullInEnums(node: unknown): void {
  if (Array.isArray(node)) {
    for (const n of node) admitNullInEnums(n);
    return;
  }
  if (!node || typeof node !== "object") return;
  const schema = node as Record<string, unknown>;
  const types = Array.isArray(schema["type"]) ? (schema["type"] as unknown[]) : [schema["type"]];
  const values = schema["enum"];
  if (types.includes("null") && Array.isArray(values) && !values.includes(null)) schema["enum"] = [...values, null];
  for (const [key, child] of Object.entries(schema)) {
    if (NAMED_SCHEMAS.has(key) && child && typeof child === "object") for (const named of Object.values(child)) admitNullInEnums(named);
    else if (!DATA_KEYS.has(key)) admitNullInEnums(child);
  }
}
/** Puts the notes on the generated query parameters (the schemas themselves stay the handlers'). */
function describeQuery(doc: OpenAPIObject, op: OperationDoc, notes: Record<string, string>): void {
  const operation = (doc.paths?.[openApiPath(op.path)] as Record<string, OperationObject> | undefined)?.[op.method];
  for (const p of operation?.parameters ?? []) {
    if ("in" in p && p.in === "query" && notes[p.name]) p.description = notes[p.name];
  }
}

let cached: OpenAPIObject | null = null;

/** The document, built once per isolate. */
export function openApiDocument(): OpenAPIObject {
  cached ??= buildOpenApiDocument();
  return cached;
}
