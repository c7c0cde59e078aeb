import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { StepFailure } from "../../gpu-runner/handler";
import type { EngineEnv } from "../../gpu-runner/engines/config";
import type { FakeHttpServer } from "./fakes/fake-http";
import { rejectionOf } from "./rejection";

/**
 * Pieces of the per-capability engine conformance suites (test/node/engines/<capability>.conformance
 * .test.ts). A suite is one `describe.each` over the capability's backends, each against its fake
 * (test/support/fakes/); the capability's own cases (what a result must contain) sit in the suite,
 * and the HTTP behaviour every hosted backend shares comes from `hostedTransportCases`, written once
 * for every capability.
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

export interface HostedCase<E> {
  /** The backend's fake (reset between tests by `useFixture`). */
  fake(): FakeHttpServer;
  /** An engine aimed at the fake, with fastRetryEnv; `env` adds or overrides variables. */
  engine(env?: EngineEnv): E & { name: string; model: string };
  /** One unit of the capability's work (transcribe a file, embed a text, …). */
  run(engine: E, signal: AbortSignal): Promise<unknown>;
  /** Asserts that a result is the fake's normal answer. */
  expectResult(result: unknown): void;
  /** The capability's `<PREFIX>_HTTP_*` variables. */
  envPrefix: string;
  /** Variables that make the backend's credentials wrong. */
  wrongCredentials: EngineEnv;
}

/**
 * The HTTP behaviour every hosted backend of every capability shares (engines/http.ts), checked
 * against the backend's fake: retries of 5xx and 429 (waiting as Retry-After asks), per-attempt
 * timeouts, a retryable failure naming engine and model once attempts run out, and no retry for a
 * request the server rejects.
 */
export function hostedTransportCases<E>(c: () => HostedCase<E>): void {
  const run = (engine: E) => c().run(engine, AbortSignal.timeout(20_000));

  it("retries a transient 500 and succeeds on the next answer", async () => {
    c().fake().fail({ status: 500 });
    c().expectResult(await run(c().engine()));
    expect(c().fake().requests).toHaveLength(2);
  });

  it("retries a 429 no sooner than its Retry-After asks", async () => {
    const { fake, engine, envPrefix } = c();
    fake().fail({ status: 429, retryAfter: "1" });
    c().expectResult(await run(engine({ [`${envPrefix}_HTTP_MAX_BACKOFF_MS`]: "5000" })));
    const [first, second] = fake().requests;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it("times out a hung attempt and retries it", async () => {
    const { fake, engine, envPrefix } = c();
    fake().fail({ delayMs: 1_000 });
    c().expectResult(await run(engine({ [`${envPrefix}_HTTP_TIMEOUT_MS`]: "200" })));
    expect(fake().requests).toHaveLength(2);
  });

  it("gives up after the configured attempts with a retryable failure naming engine, model, status and reason", async () => {
    const { fake } = c();
    fake().failAlways({ status: 503, message: "model is loading" });
    const engine = c().engine();
    const f = await rejectionOf(run(engine), StepFailure);
    expect(f).toMatchObject({
      code: "processing_failed",
      retryable: true,
      message: `${engine.name} (${engine.model}): HTTP 503 after 3 attempts: model is loading`,
    });
    expect(fake().requests).toHaveLength(3);
  });

  it("says a hung server gave no answer within the timeout", async () => {
    const { fake, engine, envPrefix } = c();
    fake().failAlways({ delayMs: 1_000 });
    const f = await rejectionOf(run(engine({ [`${envPrefix}_HTTP_TIMEOUT_MS`]: "100", [`${envPrefix}_HTTP_ATTEMPTS`]: "2" })), StepFailure);
    expect(f).toMatchObject({ retryable: true, message: expect.stringContaining("no answer within 100 ms after 2 attempts") });
  });

  it("fails at once, not retryable, when the server rejects the request (401)", async () => {
    const { fake, engine, wrongCredentials } = c();
    const e = engine(wrongCredentials);
    const f = await rejectionOf(run(e), StepFailure);
    expect(f).toMatchObject({
      code: "processing_failed",
      retryable: false,
      message: expect.stringMatching(new RegExp(`^${escape(e.name)} \\(${escape(e.model)}\\): rejected with HTTP 401: `)),
    });
    expect(fake().requests).toHaveLength(1);
  });

  it("stops at once when the task is cancelled, with the signal's reason and no retry", async () => {
    const { fake, engine } = c();
    fake().fail({ delayMs: 5_000 });
    const reason = new Error("cancel requested");
    const started = Date.now();
    await expect(c().run(engine(), abortAfter(100, reason))).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(fake().requests).toHaveLength(1);
  });
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
