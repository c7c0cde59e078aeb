import { describe, expect, it } from "vitest";
import { redactedIn } from "../../support/pii-segments";

describe("person names", () => {
  it("finds an English name (compromise)", () => {
    expect(redactedIn("I spoke with Sarah Miller yesterday afternoon.")).toEqual(["PERSON: Sarah Miller"]);
  });

  it("finds a lower-case name after 'my name is', as a recogniser without capitals writes it", () => {
    expect(redactedIn("my name is john smith and i am calling about my order")).toEqual(["PERSON: john smith"]);
  });

  it("finds the name after a title", () => {
    expect(redactedIn("Please call Doctor Okafor tomorrow.")).toEqual(["PERSON: Okafor"]);
  });

  it("finds a name after a Spanish or French introduction", () => {
    expect(redactedIn("Hola, me llamo Carlos García y trabajo aquí.", "es")).toEqual(["PERSON: Carlos García"]);
    expect(redactedIn("Bonjour, je m'appelle Marie Dubois et je suis ici.", "fr")).toEqual(["PERSON: Marie Dubois"]);
  });

  it("finds a capitalised first and last name inside a sentence in another language", () => {
    expect(redactedIn("Ayer hablé con Carlos Ruiz sobre el contrato.", "es")).toEqual(["PERSON: Carlos Ruiz"]);
  });

  it("leaves a sentence with no one named", () => {
    expect(redactedIn("The weather was lovely and we walked along the river.")).toEqual([]);
  });
});
