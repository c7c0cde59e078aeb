import { BUILT_PIPELINES, type StepSpec } from "../../contracts/pipelines";
import type { ServiceType } from "../../contracts/service-types";
import type { Settings } from "../../contracts/settings";
import type { Env } from "../env";

/**
 * The steps a job of this service type runs, or null when its pipeline is not built yet (the job
 * is then refused at create). Test pipelines from platform settings apply only when the Worker
 * runs with ALLOW_TEST_PIPELINES=true, so production can never pick them up by accident.
 */
export function pipelineFor(serviceType: ServiceType, settings: Settings, env: Pick<Env, "ALLOW_TEST_PIPELINES">): StepSpec[] | null {
  if (env.ALLOW_TEST_PIPELINES === "true") {
    const test = settings.testPipelines[serviceType];
    if (test && test.length > 0) return test;
  }
  return BUILT_PIPELINES[serviceType] ?? null;
}
