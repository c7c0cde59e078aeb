import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { StepFailure } from "../../contracts/step-failure";
import type { EngineEnv } from "../../gpu-runner/engines/config";
import type { FakeHttpServer } from "./fakes/fake-http";
import type { HostedFixture } from "./hosted-fakes";
import { rejectionOf } from "./rejection";

/**
 * Pieces of the per-capability engine conformance suites (test/node/engines/<capability>.conformance
 * .test.ts). A suite is one `describe.each` over the capability's backends, each against its fake
 * (test/support/fakes/); the capability's own cases (what a result must contain) sit in the suite,
 * and what every hosted backend shares comes from `hostedTransportCases` (HTTP) and
 * `requiredSettingCase` (the factory), written once for every capability.
 */

/** Starts a fixture once for the enclosing describe, resets it after each test, closes it at the end. */
export function useFixture<T extends { reset(): void; close(): Promise<void> }>(start: () => Promise<T>): () => T {
  let fixture: T | undefined;
  beforeAll(async () => {
    fixture = await start();
  });
  afterEach(() => fixture?.reset());
  afterAll(async () => {
    await fixture?.close();
  });
  return () => {
    if (!fixture) throw new Error("fixture not started");
    return fixture;
  };
}

/** Retries small enough for tests: 3 attempts, 10 ms backoff capped at 50 ms. */
export function fastRetryEnv(prefix: string): Record<string, string> {
  return { [`${prefix}_HTTP_ATTEMPTS`]: "3", [`${prefix}_HTTP_BACKOFF_MS`]: "10", [`${prefix}_HTTP_MAX_BACKOFF_MS`]: "50" };
}

/** Aborts with `reason` after `ms`. */
export function abortAfter(ms: number, reason: unknown): AbortSignal {
  const ac = new AbortController();
  setTimeout(() => ac.abort(reason), ms).unref();
  return ac.signal;
}

/** A hosted backend's harness as the shared cases use it: its fixture, and an engine aimed at the fake (`env` adds or overrides variables). */
export type HostedHarness<E> = HostedFixture<FakeHttpServer> & { engine(env?: EngineEnv): E };

export interface HostedCase<E> {
  /** The engine name and model every error must name. */
  name: string;
  model: string;
  /** One unit of the capability's work (transcribe a file, embed a text, …). */
  run(engine: E, signal: AbortSignal): Promise<unknown>;
  /** Asserts that a result is the fake's normal answer. */
  expectResult(result: unknown): void;
}

/**
 * The HTTP behaviour every hosted backend of every capability shares (engines/http.ts), checked
 * against the backend's fake: retries of 5xx and 429 (waiting as Retry-After asks), per-attempt
 * timeouts, a retryable failure naming engine and model once attempts run out, and no retry for a
 * request the server rejects.
 */
export function hostedTransportCases<E>(h: () => HostedHarness<E>, c: HostedCase<E>): void {
  const run = (engine: E) => c.run(engine, AbortSignal.timeout(20_000));
  const variable = (name: string) => `${h().envPrefix}_HTTP_${name}`;

  it("retries a transient 500 and succeeds on the next answer", async () => {
    h().fake.fail({ status: 500 });
    c.expectResult(await run(h().engine()));
    expect(h().fake.requests).toHaveLength(2);
  });

  it("retries a 429 no sooner than its Retry-After asks", async () => {
    h().fake.fail({ status: 429, retryAfter: "1" });
    c.expectResult(await run(h().engine({ [variable("MAX_BACKOFF_MS")]: "5000" })));
    const [first, second] = h().fake.requests;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it("times out a hung attempt and retries it", async () => {
    h().fake.fail({ delayMs: 1_000 });
    c.expectResult(await run(h().engine({ [variable("TIMEOUT_MS")]: "200" })));
    expect(h().fake.requests).toHaveLength(2);
  });

  it("gives up after the configured attempts with a retryable failure naming engine, model, status and reason", async () => {
    h().fake.failAlways({ status: 503, message: "model is loading" });
    const f = await rejectionOf(run(h().engine()), StepFailure);
    expect(f).toMatchObject({
      code: "processing_failed",
      retryable: true,
      message: `${c.name} (${c.model}): HTTP 503 after 3 attempts: model is loading`,
    });
    expect(h().fake.requests).toHaveLength(3);
  });

  it("says a hung server gave no answer within the timeout", async () => {
    h().fake.failAlways({ delayMs: 1_000 });
    const f = await rejectionOf(run(h().engine({ [variable("TIMEOUT_MS")]: "100", [variable("ATTEMPTS")]: "2" })), StepFailure);
    expect(f).toMatchObject({ retryable: true, message: expect.stringContaining("no answer within 100 ms after 2 attempts") });
  });

  // The reason after the status is the provider's error body, when it sends one (TEI's --api-key answers 401 with none).
  it("fails at once, not retryable, when the server rejects the request (401)", async () => {
    const f = await rejectionOf(run(h().engine(h().wrongCredentials)), StepFailure);
    expect(f).toMatchObject({
      code: "processing_failed",
      retryable: false,
      message: expect.stringMatching(new RegExp(`^${escape(c.name)} \\(${escape(c.model)}\\): rejected with HTTP 401(: |$)`)),
    });
    expect(h().fake.requests).toHaveLength(1);
  });

  it("stops at once when the task is cancelled, with the signal's reason and no retry", async () => {
    h().fake.fail({ delayMs: 5_000 });
    const reason = new Error("cancel requested");
    const started = Date.now();
    await expect(c.run(h().engine(), abortAfter(100, reason))).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(h().fake.requests).toHaveLength(1);
  });
}

/** The factory refuses to build a hosted `capability` engine without the variable the backend cannot do without, naming it. */
export function requiredSettingCase(capability: string, h: () => HostedHarness<unknown>): void {
  it("is unavailable on a runner missing its required setting, naming it", () => {
    const env = { ...h().env, [h().required]: undefined };
    expect(() => h().engine(env)).toThrow(
      expect.objectContaining({
        code: "engine_unavailable",
        retryable: true,
        message: `${capability} engine is not configured on this runner: ${h().required} is not set`,
      }),
    );
  });
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
