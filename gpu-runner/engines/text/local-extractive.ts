import type { GeneratedBy, MetadataDraft, SummaryDraft } from "../../../contracts/understanding";
import { StepFailure } from "../../handler";
import type { TextEngine } from "./interface";

/**
 * PLACEHOLDER so the factory compiles while the real local engine is written elsewhere; the merge
 * replaces this file with the TextRank / TextTiling / IAB-matching engine of the same name.
 */
export class LocalExtractiveTextEngine implements TextEngine {
  readonly generatedBy: GeneratedBy = { engine: "local-extractive", model: "not built yet", kind: "extractive" };

  async metadata(): Promise<MetadataDraft> {
    throw new StepFailure("engine_unavailable", "local-extractive is not built yet", true);
  }

  async summarize(): Promise<SummaryDraft> {
    throw new StepFailure("engine_unavailable", "local-extractive is not built yet", true);
  }
}
