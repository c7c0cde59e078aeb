import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_RERANK_MODEL } from "../../../contracts/rerank/interface";
import { LOCAL_RERANK_MODEL_ID, LocalWinkRerankEngine } from "../../../gpu-runner/engines/rerank/local-wink";
import { startEmbeddingsServer, type EmbeddingsServer } from "../../../scripts/local-engines/embeddings-server";

/**
 * The local reranker's reading of words (word alignment and pooled cosine over the wink vectors),
 * and the local engine process serving it in TEI's `/rerank` format, the Worker's way to it.
 */
const reranker = new LocalWinkRerankEngine();

describe("local-wink reranker", () => {
  const SAVE_CASH = "how do I save cash";
  const PARAPHRASE = "putting money aside every month builds a rainy day fund";
  const FOOTBALL = "the striker scored a late goal in the football match";

  it("names the model the Worker records for it", () => {
    expect(LOCAL_RERANK_MODEL_ID).toBe(LOCAL_RERANK_MODEL);
    expect(reranker.model).toBe(LOCAL_RERANK_MODEL);
  });

  it("ranks a paraphrase sharing no word with the query above a text on another topic", async () => {
    const [paraphrase, football] = await reranker.rerank(SAVE_CASH, [PARAPHRASE, FOOTBALL]);
    expect(paraphrase).toBeGreaterThan(football!);
  });

  it("ranks the query's own words above a paraphrase of them", async () => {
    const [same, paraphrase] = await reranker.rerank(SAVE_CASH, [SAVE_CASH, PARAPHRASE]);
    expect(same).toBeGreaterThan(paraphrase!);
  });

  it.each([
    ["stop words only", "the and of it to"],
    ["an empty text", ""],
    ["words it has no vectors for", "zxqv qwpfj"],
  ])("gives %s a finite score", async (_what, text) => {
    const [score] = await reranker.rerank(SAVE_CASH, [text]);
    expect(Number.isFinite(score)).toBe(true);
  });

  it("ranks a text of stop words only below a real text, even one on another topic", async () => {
    const [stopWords, football] = await reranker.rerank(SAVE_CASH, ["the and of it to", FOOTBALL]);
    expect(stopWords).toBeLessThan(football!);
  });

  it("gives a query of stop words only finite scores", async () => {
    const scores = await reranker.rerank("what is it", [PARAPHRASE, FOOTBALL]);
    for (const s of scores) expect(Number.isFinite(s)).toBe(true);
  });

  it("records the pooled share it is given in its model id, so its scores are not mistaken for the default's", () => {
    expect(new LocalWinkRerankEngine({ pooledWeight: 0.5 }).model).toBe(`${LOCAL_RERANK_MODEL}(pooled=0.5)`);
  });
});

describe("local engine process, POST /rerank", () => {
  let server: EmbeddingsServer;

  beforeAll(async () => {
    server = await startEmbeddingsServer({ port: 0 });
  });
  afterAll(() => server.close());

  const post = (body: unknown) =>
    fetch(`${server.url}/rerank`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const QUERY = "how to sharpen a kitchen knife";
  const TEXTS = ["bake the sourdough loaf in a hot oven", "hold the blade against the whetstone to sharpen the knife", "a football match"];

  it("answers TEI's [{ index, score }], best first, with the in-process reranker's scores", async () => {
    const res = await post({ query: QUERY, texts: TEXTS });
    expect(res.status).toBe(200);
    const expected = await reranker.rerank(QUERY, TEXTS);
    const ranked = expected.map((score, index) => ({ index, score })).sort((a, b) => b.score - a.score);
    expect(await res.json()).toEqual(ranked);
  });

  it("answers each text with its score when asked to return_text", async () => {
    const body = (await (await post({ query: QUERY, texts: TEXTS, return_text: true })).json()) as { index: number; text: string }[];
    expect(body.map((r) => r.text)).toEqual(body.map((r) => TEXTS[r.index]));
  });

  it("takes TEI's other fields (raw_scores, truncate) without complaint", async () => {
    const res = await post({ query: QUERY, texts: TEXTS, raw_scores: false, return_text: false, truncate: true });
    expect(res.status).toBe(200);
  });

  it.each([
    ["no query", { texts: TEXTS }],
    ["a blank query", { query: "  ", texts: TEXTS }],
    ["no texts", { query: QUERY }],
    ["texts that are not strings", { query: QUERY, texts: [1, 2] }],
  ])("refuses a request with %s: 422 with TEI's { error, error_type }", async (_what, body) => {
    const res = await post(body);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: expect.any(String), error_type: "Validation" });
  });

  it("refuses a body that is not JSON: 422 with TEI's error body", async () => {
    const res = await fetch(`${server.url}/rerank`, { method: "POST", body: "{not json" });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: "the body is not JSON", error_type: "Validation" });
  });

  it("answers GET with 405", async () => {
    const res = await fetch(`${server.url}/rerank`);
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ error_type: "Validation" });
  });

  it("names its reranker on /health", async () => {
    const res = await fetch(`${server.url}/health`);
    expect(await res.json()).toMatchObject({ reranker: { engine: "local-wink", model: LOCAL_RERANK_MODEL } });
  });
});
