import { describe, expect, it } from "vitest";
import { redactedIn } from "../../support/pii-segments";

describe("IBANs", () => {
  it("finds a written IBAN in groups of four", () => {
    expect(redactedIn("Transfer it to DE89 3704 0044 0532 0130 00 by Friday.")).toEqual(["IBAN: DE89 3704 0044 0532 0130 00"]);
  });

  it("finds an IBAN with bank letters written as one word", () => {
    expect(redactedIn("My account is GB29NWBK60161331926819 thanks.")).toEqual(["IBAN: GB29NWBK60161331926819"]);
  });

  it("finds an IBAN spelt out letter by letter and digit by digit", () => {
    const spoken = "d e eight nine three seven zero four zero zero four four zero five three two zero one three zero zero zero";
    expect(redactedIn(`my iban is ${spoken} ok`)).toEqual([`IBAN: ${spoken}`]);
  });

  it("leaves an IBAN whose mod-97 check fails", () => {
    expect(redactedIn("Transfer it to DE88 3704 0044 0532 0130 00 by Friday.")).toEqual([]);
  });
});
