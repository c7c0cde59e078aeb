import { describe, expect, it } from "vitest";
import { redactedIn } from "../../support/pii-segments";

describe("street addresses", () => {
  it("finds a written English address", () => {
    expect(redactedIn("I live at 22 Baker Street near the station.")).toEqual(["ADDRESS: 22 Baker Street"]);
  });

  it("finds an address spoken with its number in words", () => {
    expect(redactedIn("i live at twenty two baker street near the station")).toEqual(["ADDRESS: twenty two baker street"]);
  });

  it("does not take a distance along a road for an address", () => {
    expect(redactedIn("it is ten minutes down the road")).toEqual([]);
  });

  it("finds addresses in the order each language writes them", () => {
    expect(redactedIn("Vivo en la calle de Alcalá 45 desde hace años.", "es")).toEqual(["ADDRESS: calle de Alcalá 45"]);
    expect(redactedIn("J'habite au 12 rue de la Paix à Paris.", "fr")).toEqual(["ADDRESS: 12 rue de la Paix"]);
    expect(redactedIn("Ich wohne in der Hauptstraße 5 in Berlin.", "de")).toEqual(["ADDRESS: Hauptstraße 5"]);
    expect(redactedIn("Abito in via Roma 10 a Milano.", "it")).toEqual(["ADDRESS: via Roma 10"]);
    expect(redactedIn("Moro na rua Augusta 25 em Lisboa.", "pt")).toEqual(["ADDRESS: rua Augusta 25"]);
    expect(redactedIn("Ik woon op Kalverstraat 92 in Amsterdam.", "nl")).toEqual(["ADDRESS: Kalverstraat 92"]);
  });
});
