import type { ClipGenerationResult } from "../../../contracts/clips";
import { isStepFailure, toStepError } from "../../../contracts/step-failure";
import type { CategoryEngine, CategoryRequest, CategoryResult } from "../../engines/category/interface";
import { EngineRequestError } from "../../../contracts/engine-http";
import type { StageReporter } from "../../../contracts/step-kit";

/**
 * The clip step's `detect_category` stage. A category only steers the automatic layout, so the spec
 * skips the stage, rather than failing the job, when the request overrides the category, when
 * detection is disabled in platform settings, or when the language model service is unavailable:
 * a hosted engine this runner cannot build (no endpoint or credentials: `engine_unavailable`), or
 * one that gave no answer (network, a 5xx after its retries, a refusal, an answer it could not
 * read). The job then goes on as with detection disabled. A cancel or a lost lease still ends it.
 */

export interface CategoryOutcome {
  category: CategoryResult | null;
  source: ClipGenerationResult["categorySource"];
  /** The engine behind a detected category; null when none answered. */
  engine: CategoryEngine | null;
}

export interface DetectCategoryOptions {
  override: string | undefined;
  /** The job's `analysis.category` and the platform's `clips.category`, both on. */
  enabled: boolean;
  /** Builds the configured engine; throws `engine_unavailable` when the runner lacks its configuration. */
  makeEngine: () => CategoryEngine;
  request: CategoryRequest;
}

const STAGE = "detect_category";

export async function detectCategory(report: StageReporter<typeof STAGE>, opts: DetectCategoryOptions): Promise<CategoryOutcome> {
  if (opts.override) {
    await report.skip(STAGE, `categoryOverride ${opts.override} given`);
    return { category: { category: opts.override, confidence: 1, scores: {} }, source: "override", engine: null };
  }
  if (!opts.enabled) {
    await report.skip(STAGE, "category detection disabled in platform settings");
    return { category: null, source: "disabled", engine: null };
  }
  let engine: CategoryEngine;
  try {
    engine = opts.makeEngine();
  } catch (err) {
    if (!serviceUnavailable(err, opts.request.signal)) throw err;
    await report.skip(STAGE, unavailableReason(err));
    return { category: null, source: "unavailable", engine: null };
  }
  // Reported by hand rather than through report.stage: a service that stops answering mid-stage ends
  // it `skipped`, not `failed`, and the step goes on.
  await report.event({ stage: STAGE, event: "started" });
  let category: CategoryResult;
  try {
    category = await engine.classify(opts.request);
  } catch (err) {
    if (!serviceUnavailable(err, opts.request.signal)) {
      if (!opts.request.signal.aborted) {
        const { code, message } = toStepError(err);
        await report.event({ stage: STAGE, event: "failed", error: { code, message } }).catch(() => undefined);
      }
      throw err;
    }
    await report.skip(STAGE, unavailableReason(err));
    return { category: null, source: "unavailable", engine: null };
  }
  await report.event({
    stage: STAGE,
    event: "completed",
    details: {
      category: category.category,
      confidence: category.confidence,
      engine: engine.engine,
      model: engine.model,
      scores: category.scores,
    },
  });
  return { category, source: "detected", engine };
}

/** The language model service failed us, as opposed to the task being stopped or a bug. */
function serviceUnavailable(err: unknown, signal: AbortSignal): boolean {
  if (signal.aborted) return false;
  return err instanceof EngineRequestError || (isStepFailure(err) && err.code === "engine_unavailable");
}

function unavailableReason(err: unknown): string {
  const why = err instanceof Error ? err.message : String(err);
  return `the language model service is unavailable: ${why}`;
}
