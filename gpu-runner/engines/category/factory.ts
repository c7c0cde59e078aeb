import type { Settings } from "../../../contracts/settings";
import { StepFailure } from "../../handler";
import type { CategoryEngine } from "./interface";
import { LocalLexiconCategoryEngine } from "./local-lexicon";

/** The category engine the platform settings name. */
export function createCategoryEngine(name: Settings["clips"]["categoryEngine"] | string): CategoryEngine {
  switch (name) {
    case "local-lexicon":
      return new LocalLexiconCategoryEngine();
    default:
      throw new StepFailure("engine_unavailable", `category engine ${name} is not available on this runner`, true);
  }
}
