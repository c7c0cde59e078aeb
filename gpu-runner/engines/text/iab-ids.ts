import type { IabCategory } from "../../../contracts/understanding";
import { iabCategory, loadIabTaxonomy } from "./iab";

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

export function iabIds(lookup: IabLookup, tier1Ids: readonly string[]): IabIds {
  const tier1 = tier1Ids.map((id) => {
    const entry = lookup(id);
    if (!entry) throw new Error(`IAB tier-1 id ${id} is not in the taxonomy`);
    return entry;
  });
  return { category: lookup, tier1 };
}

let loaded: IabIds | undefined;

/** The bundled taxonomy (iab.ts reads it once per process), as the hosted engines check answers against it. */
export function loadIabIds(): IabIds {
  loaded ??= iabIds(
    (id) => {
      const e = iabCategory(id);
      return e && { id: e.id, name: e.name, tierPath: e.tierPath };
    },
    loadIabTaxonomy()
      .entries.filter((e) => e.tierPath.length === 1)
      .map((e) => e.id),
  );
  return loaded;
}
