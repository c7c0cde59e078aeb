import { describe, expect, it } from "vitest";
import { numberTokens } from "../../../contracts/pii/spoken-numbers";

const digitsOf = (text: string, language = "en") => numberTokens(text.split(" "), language).map((t) => t.text);

describe("spoken numbers", () => {
  it("keeps digits said one by one apart", () => {
    expect(digitsOf("four one five")).toEqual(["4", "1", "5"]);
  });

  it("joins compounds with hundreds, thousands and 'and'", () => {
    expect(digitsOf("four thousand one hundred and eleven")).toEqual(["4111"]);
    expect(digitsOf("two thousand and five")).toEqual(["2005"]);
    expect(digitsOf("twenty three")).toEqual(["23"]);
  });

  it("keeps a year said in pairs as two numbers", () => {
    expect(digitsOf("nineteen eighty five")).toEqual(["19", "85"]);
  });

  it("reads 'double', 'triple' and 'oh' between digits", () => {
    expect(digitsOf("double five oh triple two")).toEqual(["55", "0", "222"]);
  });

  it("keeps 'oh' that is not among digits a word", () => {
    expect(digitsOf("oh really")).toEqual(["oh", "really"]);
  });

  it("reads a recogniser's homophone of a digit between two digits or before two, and not elsewhere", () => {
    expect(digitsOf("five to eight for one")).toEqual(["5", "2", "8", "4", "1"]);
    expect(digitsOf("for one five")).toEqual(["4", "1", "5"]);
    expect(digitsOf("we went to eight shops")).toEqual(["we", "went", "to", "8", "shops"]);
  });

  it("gives ordinals their suffix", () => {
    expect(digitsOf("march twenty first")).toEqual(["march", "21st"]);
  });

  it("maps each number back to the words it was said in", () => {
    expect(numberTokens("call four one five now".split(" "), "en").map((t) => [t.text, t.from, t.to])).toEqual([
      ["call", 0, 1],
      ["4", 1, 2],
      ["1", 2, 3],
      ["5", 3, 4],
      ["now", 4, 5],
    ]);
    expect(numberTokens("twenty two baker".split(" "), "en").map((t) => [t.text, t.from, t.to])).toEqual([
      ["22", 0, 2],
      ["baker", 2, 3],
    ]);
  });

  it("reads Spanish and French compounds", () => {
    expect(digitsOf("mil novecientos ochenta y cinco", "es")).toEqual(["1985"]);
    expect(digitsOf("vingt et un", "fr")).toEqual(["21"]);
  });
});
