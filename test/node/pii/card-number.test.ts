import { describe, expect, it } from "vitest";
import { redactedIn } from "../../support/pii-segments";

describe("card numbers", () => {
  it("finds a written card number that passes the Luhn check", () => {
    expect(redactedIn("My card number is 4111 1111 1111 1111 and it expires soon.")).toEqual(["CARD_NUMBER: 4111 1111 1111 1111"]);
  });

  it("finds an American Express number grouped 4-6-5", () => {
    expect(redactedIn("Charge 3782 822463 10005 please.")).toEqual(["CARD_NUMBER: 3782 822463 10005"]);
  });

  it("finds a card number spoken digit by digit", () => {
    const spoken = "four one one one one one one one one one one one one one one one";
    expect(redactedIn(`my card is ${spoken} thanks`)).toEqual([`CARD_NUMBER: ${spoken}`]);
  });

  it("finds a card number spoken in compounds", () => {
    expect(redactedIn("my card is forty one eleven eleven eleven eleven eleven eleven eleven thanks")).toEqual([
      "CARD_NUMBER: forty one eleven eleven eleven eleven eleven eleven eleven",
    ]);
  });

  it("leaves a number that fails the Luhn check, and does not read part of it as a phone number", () => {
    expect(redactedIn("The test number 4111 1111 1111 1112 was declined.")).toEqual([]);
  });
});
