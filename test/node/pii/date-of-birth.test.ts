import { describe, expect, it } from "vitest";
import { redactedIn } from "../../support/pii-segments";

describe("dates of birth", () => {
  it("finds a written date after 'born'", () => {
    expect(redactedIn("I was born on March 12, 1985 in Ohio.")).toEqual(["DATE_OF_BIRTH: March 12, 1985"]);
  });

  it("finds a numeric date after 'date of birth'", () => {
    expect(redactedIn("My date of birth is 03/12/1985 as on my passport.")).toEqual(["DATE_OF_BIRTH: 03/12/1985"]);
  });

  it("finds a spoken date with an ordinal day and the year said in pairs", () => {
    expect(redactedIn("i was born on march twelfth nineteen eighty five")).toEqual(["DATE_OF_BIRTH: march twelfth nineteen eighty five"]);
  });

  it("finds a date of birth in French", () => {
    expect(redactedIn("Je suis née le 3 avril 1990 à Lyon.", "fr")).toEqual(["DATE_OF_BIRTH: 3 avril 1990"]);
  });

  it("leaves a date that is not a birth date", () => {
    expect(redactedIn("The meeting moved to March 12, 2024 because of the holiday.")).toEqual([]);
  });
});
