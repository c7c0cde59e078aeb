import { describe, expect, it } from "vitest";
import { call } from "./helpers/api";
import { patchSettings } from "./helpers/jobs";

const maxDuration = async () =>
  (await call<{ maxDurationSec: number }>("GET", "/v1/jobs/policy?serviceType=transcription")).body.data.maxDurationSec;

describe("GET /v1/jobs/policy?serviceType=transcription", () => {
  it("maxDurationSec is the spec's 3600 s by default", async () => {
    expect(await maxDuration()).toBe(3600);
  });

  it("maxDurationSec is the limit a source meets: the smaller of transcription.maxDurationSec and runner.maxDurationSec", async () => {
    await patchSettings({ runner: { maxDurationSec: 1800 } });
    expect(await maxDuration()).toBe(1800);
    await patchSettings({ runner: { maxDurationSec: 3600 }, transcription: { maxDurationSec: 900 } });
    expect(await maxDuration()).toBe(900);
  });
});
