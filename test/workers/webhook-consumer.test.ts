import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import { deliverable, retryDelaySeconds } from "../../queues/webhook-consumer";

describe("webhook delivery policy", () => {
  it("retries with exponential backoff for more than 24 hours before giving up", () => {
    const s = DEFAULT_SETTINGS;
    let total = 0;
    for (let attempt = 1; attempt < s.webhooks.maxAttempts; attempt++) total += retryDelaySeconds(attempt, s);
    expect(retryDelaySeconds(1, s)).toBe(30);
    expect(retryDelaySeconds(2, s)).toBe(60);
    expect(total).toBeGreaterThan(24 * 3600);
  });

  it("never sends plain http outside a local stack, whatever the settings say", () => {
    const s = { ...DEFAULT_SETTINGS, webhooks: { ...DEFAULT_SETTINGS.webhooks, allowLoopbackHttp: true } };
    expect(deliverable("http://127.0.0.1:9/hook", s, "production")).not.toBeNull();
    expect(deliverable("http://127.0.0.1:9/hook", s, "local")).toBeNull();
    expect(deliverable("http://example.com/hook", s, "local")).not.toBeNull();
    expect(deliverable("https://example.com/hook", DEFAULT_SETTINGS, "production")).toBeNull();
  });
});
