import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MODEL_ID, replicatePrediction, workersAiRunPath } from "../../../contracts/model-refs";
import { createCategoryEngine } from "../../../gpu-runner/engines/category/factory";
import { DEFAULT_RETRY } from "../../../gpu-runner/engines/http";
import { replicateClient } from "../../../gpu-runner/engines/replicate-predictions";
import { StepFailure } from "../../../contracts/step-failure";
import { fastRetryEnv } from "../../support/engine-conformance";
import type { FakeReplicate } from "../../support/fakes/replicate";
import { fakeSpeechWav } from "../../support/fakes/synthesis";
import type { FakeWorkersAI } from "../../support/fakes/workers-ai";
import { REPLICATE_FAKE, WORKERS_AI_FAKE } from "../../support/hosted-fakes";
import { rejectionOf } from "../../support/rejection";
import { synthesisEngine } from "../../support/synthesis-backends";

/**
 * A model reference reaches a hosted provider with the operator's token, so it must never name
 * another API route: each provider's shape is checked and each path part escaped
 * (contracts/model-refs.ts). The fakes record the paths they got: a refused reference sends nothing.
 */

/** References that try to leave the model's route (URL normalisation resolves `..` before a request leaves). */
const ESCAPES = [
  "x/../../deployments/o/n",
  "../../deployments/o/n",
  "owner/../name",
  "owner/name/../../x",
  "a%2F..%2Fb/n",
  "owner/name?x=1",
  "owner/name#x",
  "owner/name:../../x",
  "owner/ name",
  "/owner/name",
  "https://evil.example/owner/name",
];

let replicate: FakeReplicate;
let workersAi: FakeWorkersAI;
beforeAll(async () => {
  [replicate, workersAi] = await Promise.all([REPLICATE_FAKE.start(), WORKERS_AI_FAKE.start()]);
});
afterEach(() => {
  replicate.reset();
  workersAi.reset();
});
afterAll(async () => {
  await Promise.all([replicate?.close(), workersAi?.close()]);
});

const predictions = (model: string) =>
  replicateClient("replicate", {
    ...REPLICATE_FAKE.env(replicate),
    apiToken: "r8-token",
    model,
    pollIntervalMs: 20,
    baseUrl: `${replicate.url}/v1`,
    retry: { ...DEFAULT_RETRY, attempts: 1 },
  }).predictions;

describe("Replicate predictions: the model's path", () => {
  it.each(ESCAPES)("%s is refused, not retryable, before any request reaches Replicate", async (model) => {
    const f = await rejectionOf(predictions(model).run({ prompt: "hi" }, AbortSignal.timeout(5_000)), StepFailure);
    expect(f).toMatchObject({ code: "processing_failed", retryable: false });
    expect(f.message).toMatch(/^replicate model reference .* is not owner\/name or owner\/name:version$/);
    expect(replicate.requests.map((r) => r.path)).toEqual([]);
  });

  it("an official model runs at /models/{owner}/{name}/predictions, nowhere else", async () => {
    await predictions("meta/meta-llama-3-8b-instruct").run({ prompt: "hi" }, AbortSignal.timeout(5_000));
    expect(replicate.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /v1/models/meta/meta-llama-3-8b-instruct/predictions"]);
  });

  it("a version runs at /predictions with the version in the body", async () => {
    const version = "c846a69991daf4c0e5d016514849d14ee5b2e6846ce6b9d6f21369e564cfe51e";
    await predictions(`black-forest-labs/flux-schnell:${version}`).run({ prompt: "a cat" }, AbortSignal.timeout(5_000));
    expect(replicate.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /v1/predictions"]);
    expect(replicate.requests[0]!.json()).toMatchObject({ version });
  });

  it("the dubbing speech engine given the review's reference speaks nothing and calls nothing", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "model-paths-"));
    try {
      const referencePath = path.join(dir, "reference.wav");
      const clip = fakeSpeechWav("a reference clip");
      await writeFile(referencePath, clip);
      const sha256 = createHash("sha256").update(clip).digest("hex");
      const engine = synthesisEngine(
        "replicate",
        { ...fastRetryEnv("SYNTHESIS"), ...REPLICATE_FAKE.env(replicate) },
        "x/../../deployments/o/n",
      );
      const voice = {
        kind: "clone" as const,
        engine: "replicate" as const,
        model: engine.model,
        language: "en",
        reference: { sha256, durationSec: 3 },
        matchedTo: null,
      };
      const said = engine.synthesize({
        text: "hello",
        language: "en",
        voice,
        referencePath,
        outPath: path.join(dir, "out.wav"),
        signal: AbortSignal.timeout(5_000),
      });
      expect(await rejectionOf(said, StepFailure)).toMatchObject({ code: "processing_failed", retryable: false });
      expect(replicate.requests).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("Workers AI: the model's path", () => {
  const category = (model: string) =>
    createCategoryEngine("workers-ai", { ...fastRetryEnv("CATEGORY"), ...WORKERS_AI_FAKE.env(workersAi) }, { model });
  const request = {
    text: "a talk",
    visual: { meanFaces: 1, maxFaces: 1, cutsPerMinute: 1, speechShare: 1, speakers: 1 },
    categories: ["news"],
  };

  it.each(["@cf/../../../accounts/other/ai/run/@cf/meta/x", "@cf/meta/../x", "meta/llama", "@cf/meta/llama?x", "@cf/meta/llama/extra"])(
    "%s is refused before any request reaches Workers AI",
    async (model) => {
      const f = await rejectionOf(category(model).classify({ ...request, signal: AbortSignal.timeout(5_000) }), StepFailure);
      expect(f).toMatchObject({ code: "processing_failed", retryable: false });
      expect(workersAi.requests).toEqual([]);
    },
  );

  it("a model runs at /accounts/{account}/ai/run/@cf/{owner}/{name}", () => {
    expect(workersAiRunPath("acc 1", "@cf/meta/llama-3.1-8b-instruct")).toBe("/accounts/acc%201/ai/run/@cf/meta/llama-3.1-8b-instruct");
  });
});

describe("model ids in platform settings", () => {
  it.each(["tts-1", "llama3.1:8b", "BAAI/bge-reranker-base", "@cf/meta/llama-3.1-8b-instruct", "lucataco/xtts-v2:49ff6cfa14bd"])(
    "%s is a model id",
    (id) => {
      expect(MODEL_ID.test(id)).toBe(true);
    },
  );

  it.each(ESCAPES)("%s is not", (id) => {
    expect(MODEL_ID.test(id)).toBe(false);
  });

  it("a Replicate reference's parts are escaped one by one", () => {
    expect(replicatePrediction("owner/name")).toEqual({ path: "/models/owner/name/predictions" });
    expect(replicatePrediction("owner/name:abc123")).toEqual({ path: "/predictions", version: "abc123" });
  });
});
