import type { EngineEnv } from "../../engines/config";
import { createSynthesisEngine } from "../../engines/synthesis/factory";
import type { SynthesisEngine } from "../../engines/synthesis/interface";

/** The speech engine a job names (settings at create, or the job's own model override). */
export interface SynthesisChoice {
  engine: string;
  model: string | null;
}

export type MakeSynthesisEngine = (choice: SynthesisChoice, env: EngineEnv) => SynthesisEngine;

/** Hosted models may take a while per segment; one call stays well inside the lease's heartbeats. */
export const defaultSynthesisEngine: MakeSynthesisEngine = (choice, env) =>
  createSynthesisEngine(choice.engine, env, { requestTimeoutMs: 120_000, model: choice.model });
