import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../gpu-runner/config";

const parseError = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError");
};

describe("runner configuration", () => {
  it("requires RUNNER_TOKEN", () => {
    expect(parseError({})).toContain("RUNNER_TOKEN is required");
  });

  it("applies the documented defaults", () => {
    const c = loadConfig({ RUNNER_TOKEN: "t" });
    expect(c).toMatchObject({
      apiUrl: "http://127.0.0.1:8787",
      concurrency: 1,
      lanes: ["high", "normal", "low"],
      workDir: path.join(os.tmpdir(), "media-jobs-runner"),
      cores: os.availableParallelism(),
      pollMinMs: 500,
      pollMaxMs: 10_000,
      shutdownGraceMs: 30_000,
      enableTestHandlers: false,
    });
    expect(c.runnerId).toBe(`${os.hostname()}-${process.pid}`);
  });

  it("parses lanes, booleans and numbers from strings", () => {
    const c = loadConfig({
      RUNNER_TOKEN: "t",
      RUNNER_API_URL: "https://api.example.com/",
      RUNNER_LANES: " low , high",
      RUNNER_CONCURRENCY: "4",
      RUNNER_ENABLE_TEST_HANDLERS: "true",
    });
    expect(c).toMatchObject({ apiUrl: "https://api.example.com", lanes: ["low", "high"], concurrency: 4, enableTestHandlers: true });
  });

  it("names every invalid variable in one error", () => {
    const msg = parseError({
      RUNNER_TOKEN: "t",
      RUNNER_API_URL: "ftp://x",
      RUNNER_LANES: "high,urgent",
      RUNNER_CONCURRENCY: "0",
      RUNNER_ENABLE_TEST_HANDLERS: "maybe",
    });
    for (const name of ["RUNNER_API_URL", "RUNNER_LANES", "RUNNER_CONCURRENCY", "RUNNER_ENABLE_TEST_HANDLERS"]) {
      expect(msg).toContain(name);
    }
  });

  it.each(["http://api.example.com", "http://10.0.0.5:8787", "http://media-jobs.internal"])(
    "refuses plain http to %s: the token and every storage grant would travel in cleartext",
    (url) => {
      expect(parseError({ RUNNER_TOKEN: "t", RUNNER_API_URL: url })).toContain("RUNNER_API_URL must be https");
    },
  );

  it.each(["http://127.0.0.1:8787", "http://localhost:8787", "http://[::1]:8787", "https://media-jobs.example.workers.dev"])(
    "accepts %s (https, or plain http to a loopback host)",
    (url) => {
      expect(loadConfig({ RUNNER_TOKEN: "t", RUNNER_API_URL: url }).apiUrl).toBe(url);
    },
  );

  it("rejects a poll maximum below the minimum", () => {
    expect(parseError({ RUNNER_TOKEN: "t", RUNNER_POLL_MIN_MS: "600", RUNNER_POLL_MAX_MS: "100" })).toContain(
      "RUNNER_POLL_MAX_MS must be at least RUNNER_POLL_MIN_MS",
    );
  });
});
