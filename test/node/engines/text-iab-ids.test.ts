import { describe, expect, it } from "vitest";
import { iabIds, loadIabIds } from "../../../gpu-runner/engines/text/iab-ids";

/** The IAB Content Taxonomy 3.1 as the hosted text engines check answers against it. */
describe("IAB ids", () => {
  it("reads the official file's 704 categories, 37 of them tier 1", () => {
    const ids = loadIabIds();
    expect(ids.tier1).toHaveLength(37);
    expect(ids.tier1[0]).toEqual({ id: "150", name: "Attractions", tierPath: ["Attractions"] });
  });

  it("gives a category's name and its tier path from tier 1 down", () => {
    expect(loadIabIds().category("234")).toEqual({
      id: "234",
      name: "Herbs and Supplements",
      tierPath: ["Healthy Living", "Wellness", "Alternative Medicine", "Herbs and Supplements"],
    });
    expect(loadIabIds().category("KHPC6A")).toEqual({ id: "KHPC6A", name: "Western", tierPath: ["Genres", "Western"] });
  });

  it("knows no category for an id the file does not have", () => {
    expect(loadIabIds().category("IAB17")).toBeUndefined();
  });

  it("builds ids over any lookup function, refusing a tier-1 id it does not know", () => {
    const lookup = (id: string) => (id === "1" ? { id, name: "Automotive", tierPath: ["Automotive"] } : undefined);
    expect(iabIds(lookup, ["1"]).tier1).toEqual([{ id: "1", name: "Automotive", tierPath: ["Automotive"] }]);
    expect(() => iabIds(lookup, ["1", "999"])).toThrow("IAB tier-1 id 999 is not in the taxonomy");
  });
});
