import { describe, expect, it } from "vitest";
import { MAX_JSON_ANSWER_BYTES } from "../../../contracts/engine-http";
import { EngineRequestError } from "../../../contracts/engine-http";
import { EngineHttpClient, type RetryPolicy } from "../../../gpu-runner/engines/http";
import { HostileServer } from "../../support/hostile-server";
import { useFixture } from "../../support/engine-conformance";
import { FakeHttpServer } from "../../support/fakes/fake-http";
import { rejectionOf } from "../../support/rejection";

/**
 * The shared client's own rules, beyond what every backend's conformance suite checks: how it
 * words and bounds errors. A bare fake with plain-text errors stands in for any API.
 */
class PlainFake extends FakeHttpServer {
  protected errorBody(_status: number, message: string): unknown {
    return { message };
  }
}

const POLICY: RetryPolicy = { attempts: 2, baseDelayMs: 5, maxDelayMs: 10, timeoutMs: 2_000 };
const fake = useFixture(() => new PlainFake().listen());
const client = (baseUrl = fake().url) => new EngineHttpClient({ engine: "test-engine", model: "m-1", baseUrl, policy: POLICY });
const signal = () => AbortSignal.timeout(10_000);

describe("engine HTTP client", () => {
  it("quotes at most a short excerpt of a huge error body", async () => {
    fake().route("POST", "/huge", () => ({ status: 400, text: `bad input ${"x".repeat(50_000)}` }));
    const f = await rejectionOf(client().json("/huge", { body: {}, signal: signal() }), EngineRequestError);
    expect(f.message.startsWith("test-engine (m-1): rejected with HTTP 400: bad input xxx")).toBe(true);
    expect(f.message.length).toBeLessThan(300);
    expect(f.status).toBe(400);
  });

  it("names a server it cannot reach as a network error, after its attempts", async () => {
    const gone = await new PlainFake().listen();
    const url = gone.url;
    await gone.close();
    const f = await rejectionOf(client(url).json("/x", { signal: signal() }), EngineRequestError);
    expect(f).toMatchObject({
      retryable: true,
      status: undefined,
      message: expect.stringMatching(/^test-engine \(m-1\): network error after 2 attempts: /),
    });
  });

  it("fails without retrying on a successful answer that is not JSON", async () => {
    fake().route("GET", "/html", () => ({ status: 200, text: "<html>proxy login</html>" }));
    const f = await rejectionOf(client().json("/html", { signal: signal() }), EngineRequestError);
    expect(f.message).toBe("test-engine (m-1): answered HTTP 200 with a body that is not JSON: <html>proxy login</html>");
    expect(fake().requests).toHaveLength(1);
  });

  it("takes an absolute URL as is, and a per-call attempts override", async () => {
    fake().failAlways({ status: 500 });
    await rejectionOf(
      client("http://127.0.0.1:9/unused").json(`${fake().url}/poll`, { signal: signal(), attempts: 1 }),
      EngineRequestError,
    );
    expect(fake().requests.map((r) => r.path)).toEqual(["/poll"]);
  });

  it("reads at most a few KiB of an error body that goes on for hundreds of megabytes", async () => {
    const server = await HostileServer.start(() => ({ stream: { status: 500, bytes: 256 * 1024 * 1024 } }));
    try {
      const f = await rejectionOf(client(server.url).json("/x", { signal: signal(), attempts: 1 }), EngineRequestError);
      expect(f.message).toMatch(/^test-engine \(m-1\): HTTP 500 after 1 attempt: A+…$/);
      await expect.poll(() => server.seen[0]?.closed).toBe(true);
      expect(server.bytesSent).toBeLessThan(16 * 1024 * 1024);
    } finally {
      await server.close();
    }
  });

  it("fails, without retrying, a JSON answer larger than the cap, having read no more than the cap", async () => {
    const server = await HostileServer.start(() => ({ stream: { bytes: Infinity, headers: { "content-type": "application/json" } } }));
    try {
      const f = await rejectionOf(client(server.url).json("/x", { signal: signal() }), EngineRequestError);
      expect(f).toMatchObject({
        retryable: false,
        message: `test-engine (m-1): answered more than the ${MAX_JSON_ANSWER_BYTES} bytes allowed`,
      });
      expect(server.requests).toBe(1);
      await expect.poll(() => server.seen[0]?.closed).toBe(true);
    } finally {
      await server.close();
    }
  });
});
