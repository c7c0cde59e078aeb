import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StepFailure } from "../../../contracts/step-failure";
import { createImageEngine } from "../../../gpu-runner/engines/image/factory";
import { MAX_IMAGE_BYTES } from "../../../gpu-runner/engines/image/jpeg";
import { outputFileUrl, REPLICATE_DELIVERY_HOSTS, type OutputFileHosts } from "../../../gpu-runner/engines/output-files";
import { FakeReplicate } from "../../support/fakes/replicate";
import { engineEnv, REPLICATE_FAKE, startHosted, type HostedFixture } from "../../support/hosted-fakes";
import { hostileServers } from "../../support/hostile-server";
import { rejectionOf } from "../../support/rejection";

/**
 * A hosted engine's output URL comes from the model, which a customer may have chosen: it is
 * fetched only over https from the provider's delivery hosts, never through a redirect, and read
 * with a cap. The engine here is Replicate's image backend against the Replicate fake, with a model
 * of the attacker's whose output URL points where the attacker likes; a loopback listener stands in
 * for the operator's network and must receive nothing.
 */

const HOSTILE_MODEL = "attacker/hostile-image:v-hostile";
let fixture: HostedFixture<FakeReplicate>;
let output = "";
const start = hostileServers();

beforeAll(async () => {
  fixture = await startHosted(REPLICATE_FAKE, "IMAGE");
  fixture.fake.version("v-hostile", "attacker/hostile-image", () => [output]);
});
afterAll(async () => {
  await fixture.fake.close();
});

/** The attacker's model answers `url`; the engine runs on a runner whose local-stack switch is `loopback`. */
function generate(url: string, loopback: boolean) {
  output = url;
  const engine = createImageEngine("replicate", engineEnv(fixture, { RUNNER_ALLOW_LOOPBACK_STORAGE: String(loopback) }), {
    model: HOSTILE_MODEL,
  });
  return engine.generate({
    width: 256,
    height: 256,
    prompt: "a cover",
    title: "A cover",
    frames: [],
    variant: 0,
    signal: new AbortController().signal,
  });
}

describe("engine output URLs", () => {
  it("an output URL into the operator's network is refused without a request, not retried", async () => {
    const inside = await start();
    const err = await rejectionOf(generate(`${inside.url}/latest/meta-data/`, false), StepFailure);
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/replicate \(attacker\/hostile-image:v-hostile\): output URL is not https/);
    expect(inside.connections).toBe(0);
  });

  it("an output file that redirects fails redirect_refused, and the redirect's target receives nothing", async () => {
    const inside = await start();
    const files = await start(() => ({ redirect: `${inside.url}/latest/meta-data/` }));
    const err = await rejectionOf(generate(`${files.url}/pbxt/out.jpg`, true), StepFailure);
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: "redirect_refused", retryable: false });
    expect(err.message).toContain("HTTP 302");
    expect(err.message).not.toContain(inside.url.replace("http://", ""));
    expect(inside.connections).toBe(0);
  });

  it("an output file that never ends is read to the engine's cap and no further", async () => {
    const files = await start(() => ({ stream: { bytes: Infinity, headers: { "content-type": "image/jpeg" } } }));
    const err = await rejectionOf(generate(`${files.url}/pbxt/out.jpg`, true), StepFailure);
    expect(err.retryable).toBe(false);
    expect(err.message).toContain(`output file more than the ${MAX_IMAGE_BYTES} bytes allowed`);
    await expect.poll(() => files.seen[0]?.closed).toBe(true);
    expect(files.requests).toBe(1);
  });
});

describe("which output URLs an engine may fetch", () => {
  const files: OutputFileHosts = { hosts: REPLICATE_DELIVERY_HOSTS, allowLoopback: false };
  const fail = (m: string, retryable = true) => new StepFailure("processing_failed", m, retryable);

  it.each([
    ["plain http", "http://replicate.delivery/pbxt/a.wav", /not https/],
    ["another host", "https://files.attacker.example/a.wav", /not one of the provider's delivery hosts/],
    ["a look-alike host", "https://replicate.delivery.attacker.example/a.wav", /not one of the provider's delivery hosts/],
    ["the metadata address", "https://169.254.169.254/latest/meta-data/", /not one of the provider's delivery hosts/],
    ["loopback off a local stack", "https://127.0.0.1:8000/v1/models", /not one of the provider's delivery hosts/],
    ["not a URL", "a.wav", /not a URL/],
  ])("refuses %s", (_name, url, message) => {
    let err: unknown;
    try {
      outputFileUrl(url, { files, fail });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StepFailure);
    expect((err as StepFailure).retryable).toBe(false);
    expect((err as StepFailure).message).toMatch(message);
  });

  it.each(["https://replicate.delivery/pbxt/a.wav", "https://pbxt.replicate.delivery/a.wav", "https://REPLICATE.delivery./a.wav"])(
    "accepts %s",
    (url) => {
      expect(outputFileUrl(url, { files, fail }).href).toBe(new URL(url).href);
    },
  );

  it("accepts a loopback host over http on a local stack only", () => {
    expect(outputFileUrl("http://127.0.0.1:9000/a.wav", { files: { ...files, allowLoopback: true }, fail }).host).toBe("127.0.0.1:9000");
  });
});
