import type { z } from "zod";
import type { LeasedTask } from "../contracts/runner-protocol";
import { SERVICE_CONTRACTS } from "../contracts/services/index";
import type { ServiceContract } from "../contracts/services/types";
import { SettingsSchema, type Settings } from "../contracts/settings";
import { StepFailure } from "../contracts/step-failure";

/**
 * A step's stored input (or another document it reads) checked against its schema: a mismatch is
 * `invalid_input`, not retryable, naming every bad path, since a retry would read the same input.
 */
export function parseStepInput<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
  const r = schema.safeParse(raw);
  if (!r.success)
    throw new StepFailure(
      "invalid_input",
      `${what} is invalid: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      false,
    );
  return r.data;
}

/**
 * The platform settings a step reads, taken from `task.settings` key by key (so an unrelated
 * section can never fail it) with every default filled in. Invalid settings are the operator's to
 * fix: `processing_failed`, not retryable.
 */
export function parseStepSettings<K extends keyof Settings>(raw: Record<string, unknown>, keys: readonly K[]): Pick<Settings, K> {
  const parsed = SettingsSchema.safeParse(Object.fromEntries(keys.map((k) => [k, raw[k] ?? {}])));
  if (!parsed.success)
    throw new StepFailure(
      "processing_failed",
      `platform ${keys.join("/")} settings are invalid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      false,
    );
  return parsed.data;
}

/** Figures in stage details and records: milliseconds (three decimals) are plenty. */
export const round3 = (x: number): number => Math.round(x * 1000) / 1000;

function contractOf(service: string): ServiceContract {
  if (!Object.hasOwn(SERVICE_CONTRACTS, service)) throw new StepFailure("invalid_input", `no contract for service ${service}`, false);
  return SERVICE_CONTRACTS[service as keyof typeof SERVICE_CONTRACTS];
}

/**
 * A task's stored input and earlier outputs, parsed once by its service's contract (the `stored`
 * schema, each step's `output` schema): what a handler sees as `ctx.input` and `ctx.outputs`.
 */
export function parseTaskData(task: Pick<LeasedTask, "step" | "input" | "outputs">): {
  input: Record<string, unknown>;
  outputs: Record<string, Record<string, unknown>>;
} {
  const contract = contractOf(task.step.service);
  const input = parseStepInput(contract.stored, task.input, `${task.step.service} input`);
  const outputs: Record<string, Record<string, unknown>> = {};
  for (const [name, raw] of Object.entries(task.outputs)) {
    const schema = contract.steps.find((s) => s.name === name)?.output;
    outputs[name] = schema ? parseStepInput(schema, raw, `the output of step ${name}`) : raw;
  }
  return { input, outputs };
}
