import { describe, expect, it } from "vitest";
import { redactedIn } from "../../support/pii-segments";

describe("email addresses", () => {
  it("finds a written address", () => {
    expect(redactedIn("You can email me at john.smith@example.com any time.")).toEqual(["EMAIL: john.smith@example.com"]);
  });

  it("finds an address spoken with 'at' and 'dot', and leaves the 'at' before it", () => {
    expect(redactedIn("email me at john dot smith at example dot com please")).toEqual(["EMAIL: john dot smith at example dot com"]);
  });

  it("finds a spoken address in Spanish ('arroba', 'punto')", () => {
    expect(redactedIn("mi correo es maria arroba ejemplo punto es gracias", "es")).toEqual(["EMAIL: maria arroba ejemplo punto es"]);
  });

  it("finds what is left of an address whose 'at' the recogniser lost, after an email cue", () => {
    expect(redactedIn("you can email me and said that sarah taylor had nail dot com any time")).toEqual([
      "EMAIL: sarah taylor had nail dot com",
    ]);
  });

  it("leaves a spoken web address with no email cue before it", () => {
    expect(redactedIn("the recipes are on our site example dot com every week")).toEqual([]);
  });

  it("does not read 'at' and 'dot' in ordinary talk as an address", () => {
    expect(redactedIn("we met at the cafe and I put a dot on the map")).toEqual([]);
  });
});
