import type { EmbeddingEngine, EmbeddingEngineName } from "../../contracts/embeddings/interface";
import { MAX_BATCH } from "../../contracts/embeddings/interface";
import { normalize } from "../../contracts/embeddings/vectors";
import { LOCAL_WINK_DIMENSIONS, LOCAL_WINK_MODEL } from "../../contracts/embeddings/local-wink";
import { OPENAI_COMPATIBLE_EMBEDDING_DEFAULT_MODEL } from "../../contracts/embeddings/openai-compatible";
import { embeddingEngineForWorker } from "../../contracts/embeddings/worker-factory";
import { WORKERS_AI_EMBEDDING_DEFAULT_MODEL, type AiBinding } from "../../contracts/embeddings/workers-ai";
import type { EngineEnv } from "../../gpu-runner/engines/config";
import { createEmbeddingEngine } from "../../gpu-runner/engines/embeddings/factory";
import { startEmbeddingsServer } from "../../scripts/local-engines/embeddings-server";
import { bgeOutput, fakeEmbedding } from "./fakes/embeddings";
import type { FakeHttpServer } from "./fakes/fake-http";
import { engineEnv, OPENAI_COMPATIBLE_FAKE, startHosted, WORKERS_AI_FAKE } from "./hosted-fakes";
import type { HostedFake, HostedFixture } from "./hosted-fakes";

/**
 * Every embedding backend, each with what it talks to:
 *   local-wink (runner)          the runner's in-process engine, real vectors
 *   local-wink (Worker)          the Worker's client of the local engine process (started in-process)
 *   openai-compatible (runner)   the runner's factory against the fake OpenAI-compatible API
 *   workers-ai REST (runner)     the runner's factory against the fake Workers AI REST API
 *   workers-ai binding (Worker)  the Worker's factory with a fake AI binding
 * The conformance suite runs over this list; format tests take one entry. Every local-wink entry
 * shares the process's one load of the vectors (the node project runs files with isolate: false).
 */
export interface EmbeddingHarness {
  /** An engine for this backend; `env` adds or overrides runner variables (hosted runner backends). */
  engine(env?: EngineEnv): EmbeddingEngine;
  /** Texts the backend was sent so far, one list per request (undefined: embedded in-process). */
  sent(): string[][] | undefined;
  reset(): void;
  close(): Promise<void>;
}

export interface HostedEmbeddingHarness extends EmbeddingHarness, HostedFixture<FakeHttpServer> {
  /** The vector the fake answers for `text`, as the client must return it. */
  expected(text: string): Float32Array;
  /** Makes the fake answer a well-formed body without vectors (until reset). */
  answersNoVectors(): void;
}

export interface EmbeddingBackend<H extends EmbeddingHarness = EmbeddingHarness> {
  /** For test titles. */
  label: string;
  engine: EmbeddingEngineName;
  model: string;
  dimensions: number;
  /** Texts per request (or per slice between yields). */
  maxBatch: number;
  /** Whether the vectors carry meaning (the local engine's do; the fakes' are hashes). */
  semantic: boolean;
  start(): Promise<H>;
}

export const LOCAL_WINK: EmbeddingBackend = {
  label: "local-wink (runner, in process)",
  engine: "local-wink",
  model: LOCAL_WINK_MODEL,
  dimensions: LOCAL_WINK_DIMENSIONS,
  maxBatch: MAX_BATCH["local-wink"],
  semantic: true,
  async start() {
    return { engine: () => createEmbeddingEngine("local-wink"), sent: () => undefined, reset: () => {}, close: async () => {} };
  },
};

export const LOCAL_WINK_PROCESS: EmbeddingBackend = {
  label: "local-wink (Worker, through the local engine process)",
  engine: "local-wink",
  model: LOCAL_WINK_MODEL,
  dimensions: LOCAL_WINK_DIMENSIONS,
  maxBatch: MAX_BATCH["openai-compatible"],
  semantic: true,
  async start() {
    const server = await startEmbeddingsServer({ port: 0 });
    const sent: string[][] = [];
    const recording: typeof fetch = async (input, init) => {
      sent.push((JSON.parse(String(init?.body)) as { input: string[] }).input);
      return fetch(input, init);
    };
    return {
      engine: () => embeddingEngineForWorker({ engine: "local-wink", baseUrl: server.url, fetch: recording }),
      sent: () => sent,
      reset: () => (sent.length = 0),
      close: () => server.close(),
    };
  },
};

function hosted<F extends FakeHttpServer>(
  engine: EmbeddingEngineName,
  label: string,
  model: string,
  dimensions: number,
  opts: HostedFake<F>,
  inputOf: (body: Record<string, unknown>) => string[],
  answers: (text: string) => number[],
  answersNoVectors: (fake: F) => void,
): EmbeddingBackend<HostedEmbeddingHarness> {
  return {
    label,
    engine,
    model,
    dimensions,
    maxBatch: MAX_BATCH[engine],
    semantic: false,
    async start() {
      const fixture = await startHosted(opts, "EMBEDDING");
      const { fake } = fixture;
      return {
        ...fixture,
        engine: (overrides) => createEmbeddingEngine(engine, engineEnv(fixture, overrides)),
        sent: () => fake.requests.map((r) => inputOf(r.json() as Record<string, unknown>)),
        expected: (text) => normalize(answers(text)),
        answersNoVectors: () => answersNoVectors(fake),
        reset: () => fake.reset(),
        close: () => fake.close(),
      };
    },
  };
}

export const OPENAI_COMPATIBLE = hosted(
  "openai-compatible",
  "openai-compatible (runner)",
  OPENAI_COMPATIBLE_EMBEDDING_DEFAULT_MODEL,
  1536,
  OPENAI_COMPATIBLE_FAKE,
  (body) => body.input as string[],
  (text) => fakeEmbedding(OPENAI_COMPATIBLE_EMBEDDING_DEFAULT_MODEL, text, 1536),
  (fake) => (fake.embeddingsAnswer = { object: "list", data: [], model: OPENAI_COMPATIBLE_EMBEDDING_DEFAULT_MODEL }),
);

export const WORKERS_AI_REST = hosted(
  "workers-ai",
  "workers-ai (runner, REST API)",
  WORKERS_AI_EMBEDDING_DEFAULT_MODEL,
  768,
  WORKERS_AI_FAKE,
  (body) => body.text as string[],
  (text) => bgeOutput(WORKERS_AI_EMBEDDING_DEFAULT_MODEL, { text, pooling: "mean" }).data[0]!,
  (fake) => fake.model(WORKERS_AI_EMBEDDING_DEFAULT_MODEL, () => ({ shape: [0, 768], data: [], pooling: "mean" })),
);

/**
 * A stand-in for the Worker's AI binding: it runs the bge models as the fake REST API does, records
 * every call, and can be told to fail (`fail(error)` for the next call, `hang()` to never answer).
 */
export class FakeAiBinding implements AiBinding {
  readonly calls: { model: string; input: Record<string, unknown> }[] = [];
  private faults: (Error | "hang")[] = [];

  fail(...faults: (Error | "hang")[]): void {
    this.faults.push(...faults);
  }

  reset(): void {
    this.calls.length = 0;
    this.faults = [];
  }

  async run(model: string, input: unknown): Promise<unknown> {
    this.calls.push({ model, input: input as Record<string, unknown> });
    const fault = this.faults.shift();
    if (fault === "hang") return new Promise(() => {});
    if (fault) throw fault;
    return bgeOutput(model, input as Record<string, unknown>);
  }
}

export const WORKERS_AI_BINDING: EmbeddingBackend<EmbeddingHarness & { ai: FakeAiBinding }> = {
  label: "workers-ai (Worker, AI binding)",
  engine: "workers-ai",
  model: WORKERS_AI_EMBEDDING_DEFAULT_MODEL,
  dimensions: 768,
  maxBatch: MAX_BATCH["workers-ai"],
  semantic: false,
  async start() {
    const ai = new FakeAiBinding();
    return {
      ai,
      engine: () => embeddingEngineForWorker({ engine: "workers-ai", ai, http: { baseDelayMs: 10, maxDelayMs: 50 } }),
      sent: () => ai.calls.map((c) => c.input.text as string[]),
      reset: () => ai.reset(),
      close: async () => {},
    };
  },
};

export const HOSTED_EMBEDDING_BACKENDS: EmbeddingBackend<HostedEmbeddingHarness>[] = [OPENAI_COMPATIBLE, WORKERS_AI_REST];
export const EMBEDDING_BACKENDS: EmbeddingBackend[] = [LOCAL_WINK, LOCAL_WINK_PROCESS, ...HOSTED_EMBEDDING_BACKENDS, WORKERS_AI_BINDING];

/** Short transcript-like texts on distinct subjects, for batches (the local engine knows their words). */
const SUBJECTS = [
  "sharpening kitchen knives on a whetstone",
  "baking sourdough bread in a dutch oven",
  "a late comeback in the football match",
  "the price of bitcoin falling after an exchange halted withdrawals",
  "camping beside a mountain lake",
  "planting tomatoes and beans in the garden",
  "benchmarking a new graphics card",
  "election night results and a recount",
  "learning open guitar chords",
  "a rescue cat who wakes everyone for breakfast",
  "columbus sailing west from spain",
  "a home workout with squats and push ups",
];

const COMPANIONS = (
  "friends family neighbours children teachers students doctors farmers sailors soldiers musicians painters " +
  "engineers lawyers nurses pilots drivers cooks bakers fishermen miners poets actors dancers singers " +
  "writers journalists scientists monks priests kings queens princes pirates detectives astronauts " +
  "firefighters gardeners carpenters plumbers tailors barbers clowns wizards giants dragons robots aliens"
).split(" ");

/** `n` texts (up to 12 × 50), each with other words than the others: a subject and who was there. */
export function distinctTexts(n: number): string[] {
  const k = SUBJECTS.length;
  if (n > k * COMPANIONS.length) throw new Error(`distinctTexts makes at most ${k * COMPANIONS.length} texts`);
  return Array.from({ length: n }, (_, i) => `${SUBJECTS[i % k]}, with ${COMPANIONS[Math.floor(i / k)]}`);
}
