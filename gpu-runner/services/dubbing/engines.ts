import type { EngineEnv } from "../../engines/config";
import { createDiarizationEngine } from "../../engines/diarization/factory";
import type { DiarizationEngine, DiarizationEngineName } from "../../engines/diarization/interface";
import { createSeparationEngine } from "../../engines/separation/factory";
import type { SeparationEngine, SeparationEngineName } from "../../engines/separation/interface";
import type { DubbingStored } from "../../../contracts/services/dubbing";
import type { SynthesisEngine } from "../../engines/synthesis/interface";
import { defaultSynthesisEngine, type MakeSynthesisEngine } from "../shared/synthesis";
import { defaultTranslationEngine, type MakeTranslationEngine } from "../translation/run";

/** The engines a dubbing runs, each made from the job's stored choice; tests hand in their own. */
export type MakeDiarizationEngine = (choice: { engine: DiarizationEngineName; model: string | null }, env: EngineEnv) => DiarizationEngine;
export const defaultDiarizationEngine: MakeDiarizationEngine = (c, env) =>
  createDiarizationEngine(c.engine, env, { requestTimeoutMs: 300_000, ...(c.model ? { model: c.model } : {}) });

export type MakeSeparationEngine = (choice: { engine: SeparationEngineName; model: string | null }, env: EngineEnv) => SeparationEngine;
export const defaultSeparationEngine: MakeSeparationEngine = (c, env) =>
  createSeparationEngine(c.engine, env, { requestTimeoutMs: 300_000, ...(c.model ? { model: c.model } : {}) });

export interface DubbingHandlerDeps {
  createTranslation?: MakeTranslationEngine;
  createSynthesis?: MakeSynthesisEngine;
  createDiarization?: MakeDiarizationEngine;
  createSeparation?: MakeSeparationEngine;
  /** The engine that makes voice profiles for speakers without consent when the chosen one clones (default: local). */
  createProfiles?: (env: EngineEnv) => SynthesisEngine;
  env?: EngineEnv;
}

type Engines = DubbingStored["engines"];

/** Each engine as the job chose it at create (`input.engines`), made just before its stage: making one may fail. */
export const separationEngine = (deps: DubbingHandlerDeps, e: Engines) =>
  (deps.createSeparation ?? defaultSeparationEngine)({ engine: e.separation, model: e.separationModel }, deps.env ?? process.env);

export const diarizationEngine = (deps: DubbingHandlerDeps, e: Engines) =>
  (deps.createDiarization ?? defaultDiarizationEngine)({ engine: e.diarization, model: e.diarizationModel }, deps.env ?? process.env);

export const synthesisEngine = (deps: DubbingHandlerDeps, e: Engines) =>
  (deps.createSynthesis ?? defaultSynthesisEngine)({ engine: e.speech, model: e.speechModel }, deps.env ?? process.env);

export const translationEngine = (deps: DubbingHandlerDeps, plan: NonNullable<DubbingStored["translation"]>) =>
  (deps.createTranslation ?? defaultTranslationEngine)(plan.engine, deps.env ?? process.env);
