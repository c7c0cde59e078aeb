import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { IabCategorySchema } from "../../../contracts/understanding";
import {
  classifyIab,
  iabCategory,
  IAB_TAXONOMY_FILE,
  loadIabTaxonomy,
  nameParts,
  validateIabIds,
} from "../../../gpu-runner/engines/text/iab";
import { IAB_KEYWORDS } from "../../../gpu-runner/engines/text/iab/keywords";
import { COOKING, FILLER, FOOTBALL, TECHNOLOGY, VIDEO_GAME } from "../../support/text-fixtures";

/** The TSV's rows read here independently: id → [parent, name, tier1..4]. */
function tsvRows(): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of readFileSync(IAB_TAXONOMY_FILE, "utf8").split(/\r?\n/).slice(2)) {
    const cells = line.split("\t");
    if (cells[0]) rows.set(cells[0], cells.slice(1, 7));
  }
  return rows;
}

const talk = (sentences: readonly string[]): string => sentences.join(" ");

describe("IAB Content Taxonomy 3.1", () => {
  it("has the 704 categories of the official file", () => {
    expect(loadIabTaxonomy().entries).toHaveLength(704);
  });

  it("keeps every id, name and tier path exactly as in the TSV", () => {
    const rows = tsvRows();
    for (const e of loadIabTaxonomy().entries) {
      const [parent = "", name, ...tiers] = rows.get(e.id) ?? [];
      expect(e.name).toBe(name);
      expect(e.parent).toBe(parent === "" ? null : parent);
      expect(e.tierPath).toEqual(tiers.filter((t) => t !== ""));
    }
  });

  it("names each category last in its tier path, under a parent that exists", () => {
    const tax = loadIabTaxonomy();
    for (const e of tax.entries) {
      expect(e.tierPath[e.tierPath.length - 1]).toBe(e.name);
      if (e.parent !== null) expect(tax.byId.has(e.parent)).toBe(true);
    }
  });

  it("is parsed once and cached", () => {
    expect(loadIabTaxonomy()).toBe(loadIabTaxonomy());
  });

  it("looks a category up by id", () => {
    expect(iabCategory("216")).toMatchObject({ id: "216", parent: "210", name: "Cooking", tierPath: ["Food & Drink", "Cooking"] });
    expect(iabCategory("JLBCU7")?.name).toBe("Entertainment");
    expect(iabCategory("no-such-id")).toBeUndefined();
  });
});

describe("validateIabIds", () => {
  it("returns the known ids' categories in the order given, each once, and drops unknown ids", () => {
    expect(validateIabIds(["216", 680, "999999", "216", null, " 533 "]).map((e) => e.name)).toEqual(["Cooking", "Video Gaming", "Soccer"]);
  });
});

describe("keyword lists", () => {
  it("name a real category under each id, as the TSV spells it", () => {
    for (const [id, list] of Object.entries(IAB_KEYWORDS)) expect(iabCategory(id)?.name, id).toBe(list.name);
  });

  it("cover every tier-1 category", () => {
    const tier1 = loadIabTaxonomy().entries.filter((e) => e.parent === null);
    for (const e of tier1) expect(IAB_KEYWORDS[e.id], e.name).toBeDefined();
  });
});

describe("category names as evidence", () => {
  it("split at & / and, dropping parentheses and generic single words", () => {
    expect(nameParts("Barbecues and Grilling")).toEqual(["Barbecues", "Grilling"]);
    expect(nameParts("Comedy (Music and Audio)")).toEqual(["Comedy"]);
    expect(nameParts("Style & Fashion")).toEqual(["Fashion"]);
    expect(nameParts("Auto Body Styles")).toEqual(["Auto Body Styles"]);
  });
});

describe("classifyIab", () => {
  it("puts a cooking talk under Food & Drink, with Cooking", () => {
    const cats = classifyIab(talk(COOKING));
    expect(cats[0]?.tierPath[0]).toBe("Food & Drink");
    expect(cats.map((c) => c.name)).toContain("Cooking");
  });

  it("puts a video-game playthrough under Video Gaming", () => {
    expect(classifyIab(talk(VIDEO_GAME))[0]?.tierPath).toEqual(["Video Gaming"]);
  });

  it("puts a football match report under Sports, with Soccer", () => {
    const cats = classifyIab(talk(FOOTBALL));
    expect(cats[0]?.name).toBe("Sports");
    expect(cats.map((c) => c.name)).toContain("Soccer");
  });

  it("puts a laptop review under Technology & Computing", () => {
    expect(classifyIab(talk(TECHNOLOGY))[0]?.name).toBe("Technology & Computing");
  });

  it("returns nothing for talk that names no topic", () => {
    expect(classifyIab(talk(FILLER))).toEqual([]);
  });

  it("returns nothing for one topic word in passing", () => {
    expect(classifyIab(`${talk(FILLER)} We played a video game once.`)).toEqual([]);
  });

  it("returns nothing for empty text", () => {
    expect(classifyIab("")).toEqual([]);
  });

  it("returns at most 5 valid categories, highest confidence first, each above the threshold", () => {
    const cats = classifyIab(talk([...COOKING, ...FOOTBALL, ...VIDEO_GAME, ...TECHNOLOGY]));
    expect(cats.length).toBeGreaterThan(0);
    expect(cats.length).toBeLessThanOrEqual(5);
    for (const c of cats) {
      expect(IabCategorySchema.parse(c)).toEqual(c);
      expect(c.confidence).toBeGreaterThanOrEqual(0.3);
    }
    expect(cats.map((c) => c.confidence)).toEqual([...cats.map((c) => c.confidence)].sort((a, b) => b - a));
  });

  it("honours a smaller maximum and a higher threshold", () => {
    expect(classifyIab(talk(COOKING), { max: 1 })).toHaveLength(1);
    const strict = classifyIab(talk(COOKING), { minConfidence: 0.99 });
    for (const c of strict) expect(c.confidence).toBeGreaterThanOrEqual(0.99);
  });

  it("answers ids and names exactly as the taxonomy has them", () => {
    for (const c of classifyIab(talk([...COOKING, ...VIDEO_GAME]))) {
      const e = iabCategory(c.id);
      expect(e?.name).toBe(c.name);
      expect(e?.tierPath).toEqual(c.tierPath);
    }
  });
});
