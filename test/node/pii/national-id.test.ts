import { describe, expect, it } from "vitest";
import { redactedIn } from "../../support/pii-segments";

describe("national ID numbers", () => {
  it("finds a US Social Security number written with hyphens", () => {
    expect(redactedIn("My social security number is 123-45-6789.")).toEqual(["NATIONAL_ID: 123-45-6789."]);
  });

  it("finds a Social Security number spoken as digits after its cue", () => {
    const spoken = "one two three four five six seven eight nine";
    expect(redactedIn(`my social security number is ${spoken}`)).toEqual([`NATIONAL_ID: ${spoken}`]);
  });

  it("leaves nine digits with no cue before them", () => {
    expect(redactedIn("the parcel tracking code is one two three four five six seven eight nine")).toEqual([]);
  });

  it("finds a UK National Insurance number", () => {
    expect(redactedIn("My National Insurance number is AB 12 34 56 C.")).toEqual(["NATIONAL_ID: AB 12 34 56 C."]);
  });

  it("finds a Spanish DNI with its check letter, and leaves one with a wrong letter", () => {
    expect(redactedIn("Mi DNI es 12345678Z y vivo aquí.", "es")).toEqual(["NATIONAL_ID: 12345678Z"]);
    expect(redactedIn("Mi DNI es 12345678A y vivo aquí.", "es")).toEqual([]);
  });

  it("finds a French NIR whose key is right", () => {
    expect(redactedIn("Mon numéro est 2 55 08 14 168 025 38 voilà.", "fr")).toEqual(["NATIONAL_ID: 2 55 08 14 168 025 38"]);
  });

  it("finds a German Steuer-ID after its cue", () => {
    expect(redactedIn("Meine Steuer-ID ist 86095742719 laut Bescheid.", "de")).toEqual(["NATIONAL_ID: 86095742719"]);
  });

  it("finds an Italian codice fiscale", () => {
    expect(redactedIn("Il mio codice fiscale è RSSMRA85T10A562S grazie.", "it")).toEqual(["NATIONAL_ID: RSSMRA85T10A562S"]);
  });

  it("finds a Portuguese NIF after its cue", () => {
    expect(redactedIn("O meu NIF é 123456789 obrigado.", "pt")).toEqual(["NATIONAL_ID: 123456789"]);
  });

  it("finds a Dutch BSN that passes the 11-proef, and leaves one that fails it", () => {
    expect(redactedIn("Mijn BSN is 111222333 zoals op de pas.", "nl")).toEqual(["NATIONAL_ID: 111222333"]);
    expect(redactedIn("Mijn BSN is 111222334 zoals op de pas.", "nl")).toEqual([]);
  });
});
