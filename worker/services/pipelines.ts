import type { StepSpec } from "../../contracts/pipelines";
import { SERVICE_CONTRACTS } from "../../contracts/services/index";
import { stepSpec } from "../../contracts/services/types";
import type { ServiceType } from "../../contracts/service-types";
import type { Settings } from "../../contracts/settings";
import type { Env } from "../env";

/**
 * The steps a job of this service type runs: its contract's steps, or null when it declares none
 * (not built yet: the job is refused at create). Test pipelines from platform settings apply only
 * when the Worker runs with ALLOW_TEST_PIPELINES=true, so production can never pick them up.
 */
export function pipelineFor(serviceType: ServiceType, settings: Settings, env: Pick<Env, "ALLOW_TEST_PIPELINES">): StepSpec[] | null {
  if (env.ALLOW_TEST_PIPELINES === "true") {
    const test = settings.testPipelines[serviceType];
    if (test && test.length > 0) return test;
  }
  const steps = SERVICE_CONTRACTS[serviceType].steps;
  return steps.length > 0 ? steps.map((s) => stepSpec(serviceType, s)) : null;
}
