import { describe, expect, it } from "vitest";
import { redactedIn } from "../../support/pii-segments";

describe("phone numbers", () => {
  it("finds a written US number", () => {
    expect(redactedIn("Call me on (415) 386-2671 after six.")).toEqual(["PHONE: (415) 386-2671"]);
  });

  it("finds an international number written with +", () => {
    expect(redactedIn("Call +44 20 7946 0958 today.")).toEqual(["PHONE: +44 20 7946 0958"]);
  });

  it("finds a number spoken digit by digit", () => {
    expect(redactedIn("call me on four one five three eight six two six seven one tonight")).toEqual([
      "PHONE: four one five three eight six two six seven one",
    ]);
  });

  it("finds a number spoken with 'double' and 'oh'", () => {
    expect(redactedIn("my number is four one five double eight oh two six seven one")).toEqual([
      "PHONE: four one five double eight oh two six seven one",
    ]);
  });

  it("finds a number the recogniser heard with homophones and a stray word at its end", () => {
    expect(redactedIn("the number to dial back is four one five nine seven seven three four eight to thirty two thanks")).toEqual([
      "PHONE: four one five nine seven seven three four eight to",
    ]);
  });

  it("finds a number of the transcript's language's country", () => {
    expect(redactedIn("Mi teléfono es 912 345 678 por la tarde.", "es")).toEqual(["PHONE: 912 345 678"]);
  });

  it("does not take a quantity or a short number for a phone number", () => {
    expect(redactedIn("We shipped 4500 units in 2019 and the order number is 20453.")).toEqual([]);
  });
});
