import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from "openapi3-ts/oas31";

/**
 * The human reference: the OpenAPI document rendered as one server-side HTML page. No script, no
 * fonts or styles from elsewhere; tables scroll sideways on a phone instead of squeezing the page.
 */

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
/** Nested fields deeper than this are summarised by their type (settings documents nest far). */
const MAX_DEPTH = 6;

const esc = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/** The little markdown the descriptions use: `code` spans and paragraphs. */
const prose = (s: string | undefined): string =>
  (s ?? "")
    .split(/\n{2,}/)
    .filter((p) => p.trim())
    .map((p) => `<p>${esc(p).replace(/`([^`]+)`/g, "<code>$1</code>")}</p>`)
    .join("");

const anchor = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-");

export interface ListedOperation {
  method: string;
  path: string;
  operation: OperationObject;
}

/** Every operation of the document, in path order. */
export function listOperations(doc: OpenAPIObject): ListedOperation[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = (item as Record<string, OperationObject | undefined>)[method];
      return operation ? [{ method, path, operation }] : [];
    }),
  );
}

type Schema = SchemaObject | ReferenceObject;

function resolve<T>(doc: OpenAPIObject, value: T | ReferenceObject): T {
  let current: unknown = value;
  for (let hops = 0; hops < 10 && current && typeof current === "object" && "$ref" in current; hops++) {
    const ref = (current as ReferenceObject).$ref;
    current = ref
      .replace(/^#\//, "")
      .split("/")
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
  }
  return current as T;
}

const refName = (s: Schema): string | null => ("$ref" in s && s.$ref ? (s.$ref.split("/").pop() ?? null) : null);

function typeOf(doc: OpenAPIObject, raw: Schema): string {
  const s = resolve<SchemaObject>(doc, raw);
  if (!s) return "any";
  if (s.const !== undefined) return `constant ${JSON.stringify(s.const)}`;
  if (s.enum) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  const variants = s.oneOf ?? s.anyOf;
  if (variants) return variants.map((v) => refName(v) ?? typeOf(doc, v)).join(" or ");
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.includes("array") && s.items) return `array of ${typeOf(doc, s.items as Schema)}`;
  if (types.length === 0) return s.properties ? "object" : "any";
  return types.join(" or ");
}

function constraints(s: SchemaObject): string[] {
  const out: string[] = [];
  const add = (label: string, v: unknown) => v !== undefined && out.push(`${label} ${typeof v === "string" ? v : JSON.stringify(v)}`);
  add("min length", s.minLength);
  add("max length", s.maxLength);
  add("min", s.minimum ?? s.exclusiveMinimum);
  add("max", s.maximum ?? s.exclusiveMaximum);
  add("min items", s.minItems);
  add("max items", s.maxItems);
  add("format", s.format);
  add("pattern", s.pattern);
  add("default", s.default);
  return out;
}

interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  notes: string[];
  description: string;
}

/** A JSON Schema object as rows of dotted field names (`input.options.language`). */
function fieldRows(doc: OpenAPIObject, raw: Schema, prefix = "", depth = 0): FieldRow[] {
  const s = resolve<SchemaObject>(doc, raw);
  if (!s?.properties || depth > MAX_DEPTH) return [];
  const required = new Set(s.required ?? []);
  return Object.entries(s.properties).flatMap(([key, child]) => {
    const name = prefix ? `${prefix}.${key}` : key;
    const c = resolve<SchemaObject>(doc, child as Schema);
    const row: FieldRow = {
      name,
      type: typeOf(doc, child as Schema),
      required: required.has(key),
      notes: c ? constraints(c) : [],
      description: c?.description ?? "",
    };
    const items = c?.items ? resolve<SchemaObject>(doc, c.items as Schema) : undefined;
    const nested = items?.properties ? fieldRows(doc, items, `${name}[]`, depth + 1) : fieldRows(doc, c, name, depth + 1);
    return [row, ...nested];
  });
}

function fieldsTable(doc: OpenAPIObject, schema: Schema, caption: string): string {
  const rows = fieldRows(doc, schema);
  if (rows.length === 0) return `<p>${esc(caption)}: ${esc(typeOf(doc, schema))}.</p>`;
  return scrollTable(
    caption,
    ["Field", "Type", "Required", "Rules", "Description"],
    rows.map((r) => [
      `<code>${esc(r.name)}</code>`,
      esc(r.type),
      r.required ? "yes" : "no",
      r.notes.map(esc).join("<br>"),
      prose(r.description),
    ]),
  );
}

/** `hideCaption`: a heading right above already names the table, so the caption is for screen readers only. */
function scrollTable(caption: string, head: string[], rows: string[][], hideCaption = false): string {
  return (
    `<div class="scroll" role="region" aria-label="${esc(caption)}" tabindex="0"><table>` +
    `<caption${hideCaption ? ' class="sr"' : ""}>${esc(caption)}</caption>` +
    `<thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join("")}</tr></thead>` +
    `<tbody>${rows.map((r) => `<tr>${r.map((cell) => `<td>${cell}</td>`).join("")}</tr>`).join("")}</tbody></table></div>`
  );
}

const example = (label: string, value: unknown) =>
  `<details><summary>${esc(label)}</summary><pre><code>${esc(JSON.stringify(value, null, 2))}</code></pre></details>`;

/** A request body: a fields table, or one per variant when it is a oneOf (POST /v1/jobs). */
function requestBody(doc: OpenAPIObject, op: OperationObject, id: string): string {
  if (!op.requestBody) return "";
  const media = resolve<{ content?: Record<string, { schema?: Schema; example?: unknown }> }>(doc, op.requestBody).content?.[
    "application/json"
  ];
  if (!media?.schema) return "";
  const schema = resolve<SchemaObject>(doc, media.schema);
  const variants = schema.oneOf ?? [];
  const discriminator = schema.discriminator?.propertyName;
  const body =
    variants.length > 0
      ? `<p>One of ${variants.length} shapes${discriminator ? `, chosen by <code>${esc(discriminator)}</code>` : ""}:</p>` +
        variants
          .map((v) => {
            const name = refName(v) ?? "variant";
            const value = discriminator
              ? resolve<SchemaObject>(doc, resolve<SchemaObject>(doc, v).properties?.[discriminator] ?? {})
              : null;
            const label = value?.enum?.[0] !== undefined ? `${discriminator} = ${String(value.enum[0])}` : name;
            return `<details id="${esc(`${id}-${anchor(name)}`)}"><summary>${esc(label)}</summary>${fieldsTable(doc, v, `${label} fields`)}</details>`;
          })
          .join("")
      : fieldsTable(doc, schema, "Body fields");
  return `<h4>Request body</h4>${body}${media.example !== undefined ? example("Request example", media.example) : ""}`;
}

function parameters(doc: OpenAPIObject, op: OperationObject): string {
  const params = (op.parameters ?? []).map((p) => resolve<ParameterObject>(doc, p));
  if (params.length === 0) return "";
  return (
    `<h4>Parameters</h4>` +
    scrollTable(
      "Parameters",
      ["Name", "In", "Type", "Required", "Rules", "Description"],
      params.map((p) => {
        const s = p.schema ? resolve<SchemaObject>(doc, p.schema) : undefined;
        return [
          `<code>${esc(p.name)}</code>`,
          esc(p.in),
          p.schema ? esc(typeOf(doc, p.schema)) : "",
          p.required ? "yes" : "no",
          (s ? constraints(s) : []).map(esc).join("<br>"),
          prose(p.description),
        ];
      }),
      true,
    )
  );
}

function responses(doc: OpenAPIObject, op: OperationObject): string {
  const entries = Object.entries(op.responses ?? {}).map(
    ([status, r]) => [status, resolve<ResponseObject>(doc, r as ResponseObject)] as const,
  );
  const rows = entries.map(([status, r]) => [`<strong>${esc(status)}</strong>`, prose(r.description)]);
  const examples = entries.flatMap(([status, r]) => {
    const media = r.content?.["application/json"];
    if (!media) return [];
    const named = Object.entries(media.examples ?? {}).map(([name, ex]) =>
      example(`${status} ${name} example`, (ex as { value: unknown }).value),
    );
    return media.example !== undefined ? [example(`${status} example`, media.example), ...named] : named;
  });
  const success = entries.find(([status]) => status.startsWith("2"));
  const data = success?.[1].content?.["application/json"]?.schema;
  const dataSchema = data ? resolve<SchemaObject>(doc, data).properties?.["data"] : undefined;
  return (
    `<h4>Responses</h4>` +
    scrollTable("Responses", ["Status", "Meaning"], rows, true) +
    (dataSchema && fieldRows(doc, dataSchema).length > 0 ? fieldsTable(doc, dataSchema, "Fields of data") : "") +
    examples.join("")
  );
}

function security(op: OperationObject): string {
  const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
  const who = schemes.length === 0 ? "No key needed." : `Bearer: ${schemes.map((s) => `<code>${esc(s)}</code>`).join(" or ")}.`;
  return `<p class="auth"><strong>Authentication:</strong> ${who}</p>`;
}

function operationSection(doc: OpenAPIObject, { method, path, operation }: ListedOperation): string {
  const id = operation.operationId ?? anchor(`${method}-${path}`);
  return (
    `<section class="op" id="${esc(id)}" aria-labelledby="${esc(id)}-title">` +
    `<h3 id="${esc(id)}-title"><span class="method m-${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code></h3>` +
    `<p class="summary">${esc(operation.summary ?? "")}</p>${prose(operation.description)}${security(operation)}` +
    parameters(doc, operation) +
    requestBody(doc, operation, id) +
    responses(doc, operation) +
    `</section>`
  );
}

const STYLE = `
:root{color-scheme:light;--fg:#1a1a1a;--muted:#4a4a4a;--bg:#fff;--line:#d0d0d0;--code:#f3f3f3;--link:#0b57d0}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link)}a:focus,summary:focus,.scroll:focus{outline:3px solid #b45309;outline-offset:2px}
.skip{position:absolute;left:-999px}.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
header,main,nav{max-width:72rem;margin:0 auto;padding:0 1rem}h1{font-size:1.8rem}h2{border-bottom:2px solid var(--line);padding-top:1rem}
h3{font-size:1.1rem;overflow-wrap:anywhere}nav code,h3 code{overflow-wrap:anywhere}h4{margin:1rem 0 .25rem}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}
code{background:var(--code);padding:0 .2em;border-radius:3px}pre{background:var(--code);padding:.75rem;overflow-x:auto;border-radius:4px}
.op{border-top:1px solid var(--line);padding:.5rem 0 1rem}.summary{font-weight:600}.auth{color:var(--muted)}
.method{display:inline-block;min-width:4.2em;text-align:center;color:#fff;border-radius:3px;padding:0 .3em;font-size:.85em}
.m-get{background:#1d5e2f}.m-post{background:#0b4f9c}.m-patch{background:#7a4a00}.m-put{background:#7a4a00}.m-delete{background:#a31919}
.scroll{overflow-x:auto;margin:.5rem 0}table{border-collapse:collapse;min-width:100%}caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}th{background:var(--code)}td p{margin:0}
nav ul{padding-left:1.2rem}nav li{margin:.15rem 0}details{margin:.4rem 0}summary{cursor:pointer}
`;

/** The whole page: header, table of contents by tag, then every operation under its tag. */
export function renderReferencePage(doc: OpenAPIObject): string {
  const ops = listOperations(doc);
  const tags = (doc.tags ?? []).map((t) => ({
    ...t,
    ops: ops.filter((o) => (o.operation.tags ?? [])[0] === t.name),
  }));
  const toc = tags
    .map(
      (t) =>
        `<li><a href="#tag-${anchor(t.name)}">${esc(t.name)}</a><ul>${t.ops
          .map(
            (o) =>
              `<li><a href="#${esc(o.operation.operationId ?? "")}"><span class="method m-${o.method}">${o.method.toUpperCase()}</span> ` +
              `<code>${esc(o.path)}</code></a> ${esc(o.operation.summary ?? "")}</li>`,
          )
          .join("")}</ul></li>`,
    )
    .join("");
  const sections = tags
    .map(
      (t) =>
        `<section id="tag-${anchor(t.name)}" aria-labelledby="tag-${anchor(t.name)}-title"><h2 id="tag-${anchor(t.name)}-title">${esc(t.name)}</h2>` +
        `${prose(t.description)}${t.ops.map((o) => operationSection(doc, o)).join("")}</section>`,
    )
    .join("");
  const title = `${doc.info.title} reference (${doc.info.version})`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${esc(title)}</title><style>${STYLE}</style></head><body><a class="skip" href="#main">Skip to the reference</a>` +
    `<header><h1>${esc(title)}</h1>${prose(doc.info.description)}` +
    `<p>Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI ${esc(doc.openapi)}).</p></header>` +
    `<nav aria-label="Contents"><h2>Contents</h2><ul>${toc}</ul></nav><main id="main">${sections}</main></body></html>`
  );
}
