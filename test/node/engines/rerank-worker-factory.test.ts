import { describe, expect, it } from "vitest";
import { LOCAL_RERANK_ENGINE, LOCAL_RERANK_MODEL, type RerankEngineName } from "../../../contracts/rerank/interface";
import { rerankEngineForWorker, TEI_RERANK_DEFAULT_MODEL } from "../../../contracts/rerank/worker-factory";
import { StepFailure } from "../../../contracts/step-failure";
import { useFixture } from "../../support/engine-conformance";
import { FakeRerankAiBinding } from "../../support/fakes/rerank";
import { rejectionOf } from "../../support/rejection";
import { TEI } from "../../support/rerank-backends";

/** The Worker's choice of reranker from its settings (contracts/rerank/worker-factory.ts). */
describe("rerankEngineForWorker", () => {
  it.each([
    ["local-wink" as const, "rerank engine local-wink is not configured on this Worker: baseUrl (the local engine process) is not set"],
    ["tei" as const, "rerank engine tei is not configured on this Worker: baseUrl is not set"],
    ["workers-ai" as const, "rerank engine workers-ai is not configured on this Worker: the AI binding is not set"],
  ])("is unavailable as %s without the setting that engine needs, naming it", (engine, message) => {
    expect(() => rerankEngineForWorker({ engine })).toThrow(
      expect.objectContaining({ code: "engine_unavailable", retryable: false, message }),
    );
  });

  it("is unavailable for an engine it does not know, listing the ones it does", () => {
    expect(() => rerankEngineForWorker({ engine: "cohere" as RerankEngineName })).toThrow(
      expect.objectContaining({
        code: "engine_unavailable",
        message: "rerank engine cohere is not known (known: local-wink, tei, workers-ai)",
      }),
    );
  });

  it("reports the local engine process's client as the local reranker, whatever model it is given", () => {
    expect(rerankEngineForWorker({ engine: "local-wink", baseUrl: "http://127.0.0.1:8790", model: "another" })).toMatchObject({
      engine: LOCAL_RERANK_ENGINE,
      model: LOCAL_RERANK_MODEL,
    });
  });

  it("reports tei with bge-reranker-base unless told the model its server runs", () => {
    const baseUrl = "http://gpu-box:8080";
    expect(rerankEngineForWorker({ engine: "tei", baseUrl })).toMatchObject({ engine: "tei", model: TEI_RERANK_DEFAULT_MODEL });
    expect(rerankEngineForWorker({ engine: "tei", baseUrl, model: "BAAI/bge-reranker-v2-m3" })).toMatchObject({
      model: "BAAI/bge-reranker-v2-m3",
    });
  });

  it("reports workers-ai with bge-reranker-base", () => {
    expect(rerankEngineForWorker({ engine: "workers-ai", ai: new FakeRerankAiBinding() })).toMatchObject({
      engine: "workers-ai",
      model: "@cf/baai/bge-reranker-base",
    });
  });

  describe("against a failing TEI server", () => {
    const h = useFixture(TEI.start);

    it("tries twice by default, since a search waits for its reranker", async () => {
      h().fake.failAlways({ status: 503, message: "model is loading" });
      const engine = rerankEngineForWorker({ engine: "tei", baseUrl: h().fake.url, apiKey: "tei-key" });
      const f = await rejectionOf(engine.rerank("a query", ["a text"]), StepFailure);
      expect(f.message).toBe("tei (BAAI/bge-reranker-base): HTTP 503 after 2 attempts: model is loading");
      expect(h().fake.requests).toHaveLength(2);
    });

    it("takes the retry policy it is given over its default", async () => {
      h().fake.failAlways({ status: 503 });
      const engine = rerankEngineForWorker({ engine: "tei", baseUrl: h().fake.url, apiKey: "tei-key", http: { attempts: 1 } });
      await rejectionOf(engine.rerank("a query", ["a text"]), StepFailure);
      expect(h().fake.requests).toHaveLength(1);
    });
  });
});
