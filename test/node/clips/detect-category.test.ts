import { describe, expect, it } from "vitest";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { StepFailure } from "../../../contracts/step-failure";
import { detectCategory, type DetectCategoryOptions } from "../../../gpu-runner/services/clip-generation/category";
import { HOSTED_CATEGORY_BACKENDS, LOCAL_LEXICON, STANDIN_CONFIDENCE, type HostedCategoryHarness } from "../../support/category-backends";
import { useFixture } from "../../support/engine-conformance";
import { RecordingReporter } from "../../support/handler-context";

/**
 * The clip step's `detect_category` stage (gpu-runner/services/clip-generation/category.ts): the
 * spec skips it when the request overrides the category, when detection is disabled, or when the
 * language model service is unavailable. Each hosted backend runs against its fake; the job goes on
 * with no category, as with detection disabled.
 */

function options(h: HostedCategoryHarness, over: Partial<DetectCategoryOptions> = {}): DetectCategoryOptions {
  return {
    override: undefined,
    enabled: true,
    makeEngine: () => h.engine(),
    request: { ...h.request(), signal: AbortSignal.timeout(20_000) },
    ...over,
  };
}

/** A loopback port nothing listens on: every connection is refused. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const BASE_URL_VARIABLE: Record<string, string> = {
  "openai-compatible": "OPENAI_COMPAT_BASE_URL",
  "workers-ai": "WORKERS_AI_BASE_URL",
};

describe.each(HOSTED_CATEGORY_BACKENDS)("detect_category with the $name engine", (backend) => {
  const h = useFixture(backend.start);

  it("a working language model service: the stage completes with its category, engine and model", async () => {
    const report = new RecordingReporter();
    const out = await detectCategory(report, options(h()));
    expect(out).toMatchObject({ source: "detected", category: { category: "interview", confidence: STANDIN_CONFIDENCE } });
    expect(out.engine).toMatchObject({ engine: backend.name, model: backend.model });
    expect(report.timeline()).toEqual(["detect_category:started", "detect_category:completed"]);
    expect(report.eventsOf("detect_category")[1]?.details).toMatchObject({ category: "interview", engine: backend.name });
  });

  it("a runner without the service's configuration skips the stage, saying why, instead of failing the job", async () => {
    const report = new RecordingReporter();
    const out = await detectCategory(report, options(h(), { makeEngine: () => h().engine({ [h().required]: "" }) }));
    expect(out).toEqual({ category: null, source: "unavailable", engine: null });
    expect(report.timeline()).toEqual(["detect_category:skipped"]);
    expect(report.events[0]?.details?.["reason"]).toMatch(
      new RegExp(
        `^the language model service is unavailable: category engine is not configured on this runner: ${h().required} is not set`,
      ),
    );
    expect(h().fake.requests).toHaveLength(0);
  });

  it("a service that answers 5xx after its retries ends the stage skipped, not failed", async () => {
    h().fake.failAlways({ status: 503, message: "overloaded" });
    const report = new RecordingReporter();
    const out = await detectCategory(report, options(h()));
    expect(out).toEqual({ category: null, source: "unavailable", engine: null });
    expect(report.timeline()).toEqual(["detect_category:started", "detect_category:skipped"]);
    expect(report.events[1]?.details?.["reason"]).toMatch(/^the language model service is unavailable: .*HTTP 503 after 3 attempts/);
    expect(h().fake.requests).toHaveLength(3);
  });

  it("a service that cannot be reached ends the stage skipped, not failed", async () => {
    const report = new RecordingReporter();
    const unreachable = await closedPort();
    const base = backend.name === "workers-ai" ? `${unreachable}/client/v4` : unreachable;
    const out = await detectCategory(report, options(h(), { makeEngine: () => h().engine({ [BASE_URL_VARIABLE[backend.name]!]: base }) }));
    expect(out.source).toBe("unavailable");
    expect(report.timeline()).toEqual(["detect_category:started", "detect_category:skipped"]);
    expect(report.events[1]?.details?.["reason"]).toMatch(/network error after 3 attempts/);
  });

  it("a cancelled task is not turned into a skip: the cancel's reason ends the step", async () => {
    const reason = new Error("cancel requested");
    const report = new RecordingReporter();
    const request = { ...h().request(), signal: AbortSignal.abort(reason) };
    await expect(detectCategory(report, options(h(), { request }))).rejects.toBe(reason);
    expect(report.timeline()).toEqual(["detect_category:started"]);
  });
});

describe("detect_category skipped for the request or the settings", () => {
  const h = useFixture(LOCAL_LEXICON.start);
  const request = () => ({ ...h().request(), signal: AbortSignal.timeout(20_000) });

  it("a categoryOverride is the category, and the stage is skipped naming it", async () => {
    const report = new RecordingReporter();
    const out = await detectCategory(report, {
      override: "gaming",
      enabled: true,
      makeEngine: () => {
        throw new Error("no engine is built for an override");
      },
      request: request(),
    });
    expect(out).toEqual({ category: { category: "gaming", confidence: 1, scores: {} }, source: "override", engine: null });
    expect(report.events).toEqual([{ stage: "detect_category", event: "skipped", details: { reason: "categoryOverride gaming given" } }]);
  });

  it("detection disabled in platform settings skips the stage", async () => {
    const report = new RecordingReporter();
    const out = await detectCategory(report, { override: undefined, enabled: false, makeEngine: () => h().engine(), request: request() });
    expect(out).toEqual({ category: null, source: "disabled", engine: null });
    expect(report.events[0]?.details).toEqual({ reason: "category detection disabled in platform settings" });
  });

  it("an error that is not the service's (a bug, a plan with no categories) still fails the stage", async () => {
    const report = new RecordingReporter();
    const broken = { engine: "broken", model: "none", classify: () => Promise.reject(new StepFailure("processing_failed", "boom", false)) };
    await expect(
      detectCategory(report, { override: undefined, enabled: true, makeEngine: () => broken, request: request() }),
    ).rejects.toThrow("boom");
    expect(report.timeline()).toEqual(["detect_category:started", "detect_category:failed"]);
  });
});
