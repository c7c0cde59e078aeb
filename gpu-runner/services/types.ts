import type { ServiceContracts } from "../../contracts/services/index";
import type { StageOf } from "../../contracts/services/types";
import type { StepHandler } from "../handler";

/** Every runner step any service declares (contracts/services). */
type RunnerStep = Extract<ServiceContracts[keyof ServiceContracts]["steps"][number], { executor: "runner" }>;

/**
 * The runner's handler registry as the contracts require it: one handler per runner step, keyed by
 * the step's handler name, each typed to report only its step's stages. A service that declares a
 * runner step with no handler here is a compile error.
 */
export type RunnerHandlers = { [S in RunnerStep as S["handler"]]: StepHandler<StageOf<S>> };
