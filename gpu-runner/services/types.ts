import type { OutputsOf, ServiceContracts, StoredOf } from "../../contracts/services/index";
import type { ServiceName, StageOf } from "../../contracts/services/types";
import type { StepHandler } from "../handler";

/** The runner steps of one service. */
type RunnerStepOf<K extends ServiceName> = Extract<ServiceContracts[K]["steps"][number], { executor: "runner" }>;

/** A runner step's handler as its contract types it: its stages, its service's stored input, earlier steps' outputs. */
export type ServiceStepHandler<K extends ServiceName, S> = StepHandler<StageOf<S>, StoredOf<K>, OutputsOf<K>>;

type HandlersOf<K extends ServiceName> = { [S in RunnerStepOf<K> as S["handler"]]: ServiceStepHandler<K, S> };
type Intersect<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/**
 * The runner's handler registry as the contracts require it: one handler per runner step, keyed by
 * the step's handler name, each typed to report only its step's stages and to read its service's
 * stored input. A service that declares a runner step with no handler here is a compile error.
 */
export type RunnerHandlers = Intersect<{ [K in ServiceName]: HandlersOf<K> }[ServiceName]>;
