import { LOCAL_RERANK_ENGINE, LOCAL_RERANK_MODEL, type RerankEngine, type RerankEngineName } from "../../contracts/rerank/interface";
import { rerankEngineForWorker, TEI_RERANK_DEFAULT_MODEL } from "../../contracts/rerank/worker-factory";
import { EngineConfig, type EngineEnv } from "../../gpu-runner/engines/config";
import { LocalWinkRerankEngine } from "../../gpu-runner/engines/rerank/local-wink";
import { startEmbeddingsServer } from "../../scripts/local-engines/embeddings-server";
import { fastRetryEnv } from "./engine-conformance";
import { FakeRerankAiBinding, FakeTei, WORKERS_AI_RERANK_MODEL } from "./fakes/rerank";
import type { HostedFixture } from "./hosted-fakes";

/**
 * Every reranker backend, each with what it talks to:
 *   local-wink (runner)           LocalWinkRerankEngine in this process, real word vectors
 *   local-wink (Worker)           the Worker's client of the local engine process (started in-process)
 *   tei (Worker)                  the Worker's factory against the fake TEI server
 *   workers-ai binding (Worker)   the Worker's factory with a fake AI binding
 * The conformance suite runs over this list; format tests take one entry. Both local-wink entries
 * share the process's one load of the vectors (the node project runs files with isolate: false).
 *
 * Rerankers are the Worker's (its search route), configured by settings, not by a runner's
 * environment. The hosted harnesses still take variables, so the transport cases written for every
 * capability (engine-conformance.ts) apply: `RERANK_HTTP_*` is the retry policy, `TEI_BASE_URL` and
 * `TEI_API_KEY` where the TEI engine is aimed, all read here only.
 */
export interface RerankHarness {
  /** An engine for this backend; `env` adds or overrides variables (hosted backends). */
  engine(env?: EngineEnv): RerankEngine;
  /** Texts the backend was sent so far, one list per request (undefined: scored in-process). */
  sent(): string[][] | undefined;
  reset(): void;
  close(): Promise<void>;
}

export interface RerankBackend<H extends RerankHarness = RerankHarness> {
  /** For test titles. */
  label: string;
  engine: RerankEngineName;
  model: string;
  /** Whether its scores read meaning (the local reranker's do; the fakes' count shared words). */
  semantic: boolean;
  start(): Promise<H>;
}

export const LOCAL_WINK: RerankBackend = {
  label: "local-wink (runner, in process)",
  engine: "local-wink",
  model: LOCAL_RERANK_MODEL,
  semantic: true,
  async start() {
    return { engine: () => new LocalWinkRerankEngine(), sent: () => undefined, reset: () => {}, close: async () => {} };
  },
};

export const LOCAL_WINK_PROCESS: RerankBackend = {
  label: "local-wink (Worker, through the local engine process)",
  engine: LOCAL_RERANK_ENGINE,
  model: LOCAL_RERANK_MODEL,
  semantic: true,
  async start() {
    const server = await startEmbeddingsServer({ port: 0 });
    const sent: string[][] = [];
    const recording: typeof fetch = async (input, init) => {
      sent.push((JSON.parse(String(init?.body)) as { texts: string[] }).texts);
      return fetch(input, init);
    };
    return {
      engine: () => rerankEngineForWorker({ engine: "local-wink", baseUrl: server.url, fetch: recording }),
      sent: () => sent,
      reset: () => (sent.length = 0),
      close: () => server.close(),
    };
  },
};

/** The retry policy a hosted harness's engine gets from `RERANK_HTTP_*`. */
function rerankHttp(env: EngineEnv) {
  return new EngineConfig(env, "rerank").retryPolicy("RERANK");
}

export type TeiHarness = RerankHarness & HostedFixture<FakeTei>;

export const TEI: RerankBackend<TeiHarness> = {
  label: "tei (Worker, fake TEI server)",
  engine: "tei",
  model: TEI_RERANK_DEFAULT_MODEL,
  semantic: false,
  async start() {
    const fake = await FakeTei.start({ apiKey: "tei-key" });
    const fixture: HostedFixture<FakeTei> = {
      fake,
      env: { TEI_BASE_URL: fake.url, TEI_API_KEY: "tei-key" },
      wrongCredentials: { TEI_API_KEY: "tei-wrong" },
      required: "TEI_BASE_URL",
      envPrefix: "RERANK",
    };
    return {
      ...fixture,
      engine: (overrides = {}) => {
        const env = { ...fastRetryEnv("RERANK"), ...fixture.env, ...overrides };
        return rerankEngineForWorker({
          engine: "tei",
          ...(env.TEI_BASE_URL ? { baseUrl: env.TEI_BASE_URL } : {}),
          ...(env.TEI_API_KEY ? { apiKey: env.TEI_API_KEY } : {}),
          http: rerankHttp(env),
        });
      },
      sent: () => fake.reranks.map((r) => r.texts),
      reset: () => fake.reset(),
      close: () => fake.close(),
    };
  },
};

export type WorkersAiBindingHarness = RerankHarness & { ai: FakeRerankAiBinding };

export const WORKERS_AI_BINDING: RerankBackend<WorkersAiBindingHarness> = {
  label: "workers-ai (Worker, AI binding)",
  engine: "workers-ai",
  model: WORKERS_AI_RERANK_MODEL,
  semantic: false,
  async start() {
    const ai = new FakeRerankAiBinding();
    return {
      ai,
      engine: (overrides = {}) =>
        rerankEngineForWorker({ engine: "workers-ai", ai, http: rerankHttp({ ...fastRetryEnv("RERANK"), ...overrides }) }),
      sent: () => ai.sent,
      reset: () => ai.reset(),
      close: async () => {},
    };
  },
};

export const RERANK_BACKENDS: RerankBackend[] = [LOCAL_WINK, LOCAL_WINK_PROCESS, TEI, WORKERS_AI_BINDING];
