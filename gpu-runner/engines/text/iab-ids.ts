import { readFileSync } from "node:fs";
import path from "node:path";
import type { IabCategory } from "../../../contracts/understanding";

/**
 * What the hosted text engines need of the IAB Content Taxonomy 3.1: the category behind an id
 * (so a model answers ids only, and names and tier paths come from the official file), and the
 * tier-1 categories the prompt offers (a small model cannot be expected to know the taxonomy's ids
 * by heart; the 37 tier-1 lines cost about 660 characters, the 323 tier-2 ones would cost 6,000).
 *
 * The engines take an `IabIds` through their configuration; `iabIds(lookup, tier1Ids)` builds one
 * from any lookup function (the taxonomy module, gpu-runner/engines/text/iab.ts, can stand behind
 * it), and `loadIabIds()` reads the copy of the official file beside this module.
 *
 * Data: iab/content-taxonomy-3.1.tsv is the IAB Tech Lab Content Taxonomy 3.1, unchanged
 * (Creative Commons Attribution 3.0, IAB Tech Lab; see iab/README.md).
 */
export type IabEntry = Omit<IabCategory, "confidence">;

/** The category with this id, as the taxonomy file has it, or undefined for an id it does not have. */
export type IabLookup = (id: string) => IabEntry | undefined;

export interface IabIds {
  category: IabLookup;
  /** Offered to the model in the prompt: every tier-1 category, id and name. */
  tier1: readonly IabEntry[];
}

export const IAB_TAXONOMY_FILE = path.join(import.meta.dirname, "iab", "content-taxonomy-3.1.tsv");

/** An `IabIds` over a lookup function; `tier1Ids` must all be known to it. */
export function iabIds(lookup: IabLookup, tier1Ids: readonly string[]): IabIds {
  const tier1 = tier1Ids.map((id) => {
    const entry = lookup(id);
    if (!entry) throw new Error(`IAB tier-1 id ${id} is not in the taxonomy`);
    return entry;
  });
  return { category: lookup, tier1 };
}

/**
 * Parses the official TSV: two header lines, then `Unique ID, Parent, Name, Tier 1, Tier 2, Tier 3,
 * Tier 4, Extension` (CRLF line ends). The tier path is the non-empty tier columns.
 */
export function parseIabTaxonomy(tsv: string): IabEntry[] {
  const entries: IabEntry[] = [];
  for (const line of tsv.split(/\r?\n/).slice(2)) {
    const cols = line.split("\t").map((c) => c.trim());
    const [id, , name] = cols;
    if (!id || !name) continue;
    const tierPath = cols.slice(3, 7).filter((t) => t !== "");
    if (tierPath.length === 0) continue;
    entries.push({ id, name, tierPath });
  }
  return entries;
}

let loaded: IabIds | undefined;

/** The taxonomy file beside this module, read once per process. */
export function loadIabIds(file = IAB_TAXONOMY_FILE): IabIds {
  if (file === IAB_TAXONOMY_FILE && loaded) return loaded;
  const entries = parseIabTaxonomy(readFileSync(file, "utf8"));
  const byId = new Map(entries.map((e) => [e.id, e]));
  const ids = iabIds(
    (id) => byId.get(id),
    entries.filter((e) => e.tierPath.length === 1).map((e) => e.id),
  );
  if (file === IAB_TAXONOMY_FILE) loaded = ids;
  return ids;
}
