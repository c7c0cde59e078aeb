import type { EngineEnv } from "../../gpu-runner/engines/config";
import { FakeOpenAICompatible } from "./fakes/openai-compatible";
import { FakeReplicate } from "./fakes/replicate";
import { FakeWorkersAI } from "./fakes/workers-ai";

/**
 * How each hosted provider's local fake is started and pointed at, shared by every capability's
 * backend harness (speech, image, category): the runner's environment for it, credentials it
 * refuses, and the variable without which the factory must refuse to build the engine.
 */
export interface HostedFake<F> {
  start: () => Promise<F>;
  env: (fake: F) => EngineEnv;
  wrongCredentials: EngineEnv;
  required: string;
}

export const OPENAI_COMPATIBLE_FAKE: HostedFake<FakeOpenAICompatible> = {
  start: () => FakeOpenAICompatible.start({ apiKey: "sk-test" }),
  env: (fake) => ({ OPENAI_COMPAT_BASE_URL: fake.url, OPENAI_COMPAT_API_KEY: "sk-test" }),
  wrongCredentials: { OPENAI_COMPAT_API_KEY: "sk-wrong" },
  required: "OPENAI_COMPAT_BASE_URL",
};

export const WORKERS_AI_FAKE: HostedFake<FakeWorkersAI> = {
  start: () => FakeWorkersAI.start({ accountId: "acc123", apiToken: "cf-token" }),
  env: (fake) => ({ WORKERS_AI_BASE_URL: `${fake.url}/client/v4`, CLOUDFLARE_ACCOUNT_ID: "acc123", CLOUDFLARE_API_TOKEN: "cf-token" }),
  wrongCredentials: { CLOUDFLARE_API_TOKEN: "cf-wrong" },
  required: "CLOUDFLARE_ACCOUNT_ID",
};

export const REPLICATE_FAKE: HostedFake<FakeReplicate> = {
  start: () => FakeReplicate.start({ apiToken: "r8-token" }),
  // Polling every 20 ms keeps tests of running predictions short.
  env: (fake) => ({ REPLICATE_API_TOKEN: "r8-token", REPLICATE_BASE_URL: `${fake.url}/v1`, REPLICATE_POLL_INTERVAL_MS: "20" }),
  wrongCredentials: { REPLICATE_API_TOKEN: "r8-wrong" },
  required: "REPLICATE_API_TOKEN",
};
