import type { EngineEnv } from "../../gpu-runner/engines/config";
import { fastRetryEnv } from "./engine-conformance";
import { FakeOpenAICompatible } from "./fakes/openai-compatible";
import { FakeReplicate } from "./fakes/replicate";
import { FakeWorkersAI } from "./fakes/workers-ai";

/**
 * How each hosted provider's local fake is started and pointed at, shared by every capability's
 * backend harness (speech, image, embeddings, text, category): the runner's environment for it,
 * credentials it refuses, and the variable without which the factory must refuse to build the engine.
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
  // Polling every 20 ms keeps tests of running predictions short. The fake's file host is on
  // loopback, which output fetches allow on a local stack only.
  env: (fake) => ({
    REPLICATE_API_TOKEN: "r8-token",
    REPLICATE_BASE_URL: `${fake.url}/v1`,
    REPLICATE_POLL_INTERVAL_MS: "20",
    RUNNER_ALLOW_LOOPBACK_STORAGE: "true",
  }),
  wrongCredentials: { REPLICATE_API_TOKEN: "r8-wrong" },
  required: "REPLICATE_API_TOKEN",
};

/** What every hosted backend's harness holds, whatever the capability: its fake, started, and how an engine reaches it. */
export interface HostedFixture<F> {
  fake: F;
  /** The variables the fake is reached with (base URL, credentials). */
  env: EngineEnv;
  /** Variables that make the backend's credentials wrong. */
  wrongCredentials: EngineEnv;
  /** The first variable the backend cannot do without. */
  required: string;
  /** The capability's `<PREFIX>_HTTP_*` variables. */
  envPrefix: string;
}

export async function startHosted<F>(hosted: HostedFake<F>, envPrefix: string): Promise<HostedFixture<F>> {
  const fake = await hosted.start();
  return { fake, env: hosted.env(fake), wrongCredentials: hosted.wrongCredentials, required: hosted.required, envPrefix };
}

/** What an engine aimed at the fixture's fake is built with: fast retries, the fake's variables, then `overrides`. */
export function engineEnv(fixture: HostedFixture<unknown>, overrides: EngineEnv = {}): EngineEnv {
  return { ...fastRetryEnv(fixture.envPrefix), ...fixture.env, ...overrides };
}
