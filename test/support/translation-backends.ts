import type { EngineEnv } from "../../gpu-runner/engines/config";
import { createTranslationEngine, type CreateTranslationEngineOptions } from "../../gpu-runner/engines/translation/factory";
import type { TranslationEngine } from "../../gpu-runner/engines/translation/interface";
import { OPENAI_COMPATIBLE_TRANSLATION_DEFAULT_MODEL } from "../../gpu-runner/engines/translation/openai-compatible";
import { REPLICATE_TRANSLATION_DEFAULT_MODEL } from "../../gpu-runner/engines/translation/replicate";
import { WORKERS_AI_TRANSLATION_DEFAULT_MODEL } from "../../gpu-runner/engines/translation/workers-ai";
import type { LogLevel } from "../../gpu-runner/log";
import { startApertiumApy } from "./apertium-apy";
import type { ChatReply, ChatTurn } from "./fakes/chat";
import type { FakeHttpServer } from "./fakes/fake-http";
import { fakeTranslation, standInTranslator } from "./fakes/translation";
import {
  engineEnv,
  OPENAI_COMPATIBLE_FAKE,
  REPLICATE_FAKE,
  startHosted,
  WORKERS_AI_FAKE,
  type HostedFake,
  type HostedFixture,
} from "./hosted-fakes";

/**
 * Every translation backend as the conformance suite drives it: Apertium through a real
 * apertium-apy server and through the real command, and the hosted backends against their fakes
 * (Workers AI's m2m100, and language models played by `standInTranslator`).
 */
export interface LogEntry {
  level: LogLevel;
  event: string;
  fields: Record<string, unknown>;
}

export interface TranslationHarness {
  /** An engine of this backend; `env` adds or overrides variables. */
  engine(env?: EngineEnv, opts?: CreateTranslationEngineOptions): TranslationEngine;
  /** What the backend makes of ENGLISH_TALK's texts in Spanish. */
  spanish: readonly string[];
  logged: LogEntry[];
  reset(): void;
  close(): Promise<void>;
}

export interface TranslationBackend<H extends TranslationHarness = TranslationHarness> {
  label: string;
  /** The name errors start with. */
  engine: string;
  /** The model recorded for en→es. */
  model: string;
  start(): Promise<H>;
}

/** Three short segments; the third continues the second's sentence. */
export const ENGLISH_TALK = ["The house is big.", "We water the tomatoes", "every morning."];

/** apertium eng-spa on ENGLISH_TALK (each output's first letter in its source's case). */
export const APERTIUM_SPANISH = ["La casa es grande.", "Abrevamos los tomates", "cada mañana."];

function apertium(label: string, transport: "apy" | "cli"): TranslationBackend {
  return {
    label,
    engine: "apertium",
    model: "apertium:eng-spa",
    async start() {
      const apy = transport === "apy" ? await startApertiumApy() : undefined;
      const logged: LogEntry[] = [];
      return {
        engine: (env = {}, opts = {}) =>
          createTranslationEngine(
            "apertium",
            { ...(apy ? { APERTIUM_APY_URL: apy.url } : {}), ...env },
            {
              log: (level, event, fields = {}) => logged.push({ level, event, fields }),
              ...opts,
            },
          ),
        spanish: APERTIUM_SPANISH,
        logged,
        reset: () => (logged.length = 0),
        close: async () => apy?.close(),
      };
    },
  };
}

export const APERTIUM_APY = apertium("apertium through apertium-apy", "apy");
export const APERTIUM_CLI = apertium("apertium through the command", "cli");

/** A hosted backend's harness: its fixture as the shared transport cases use it, and the engine. */
export type HostedTranslationHarness<F extends FakeHttpServer = FakeHttpServer> = TranslationHarness & HostedFixture<F>;

export interface LanguageModelHarness<
  F extends FakeHttpServer & { chatReply: ChatReply } = FakeHttpServer & { chatReply: ChatReply },
> extends HostedTranslationHarness<F> {
  /** Makes the model say these answers, one per request in turn, then the stand-in again (until reset). */
  says(...answers: string[]): void;
  /** Every conversation the model heard, in order. */
  heard: ChatTurn[][];
}

function hosted<F extends FakeHttpServer, X extends { reset(): void }>(
  name: "workers-ai" | "replicate" | "openai-compatible",
  model: string,
  opts: HostedFake<F>,
  prepare: (fixture: HostedFixture<F>) => X,
): TranslationBackend<HostedTranslationHarness<F> & Omit<X, "reset">> {
  return {
    label: name,
    engine: name,
    model,
    async start() {
      const fixture = await startHosted(opts, "TRANSLATION");
      const logged: LogEntry[] = [];
      const extra = prepare(fixture);
      return {
        ...fixture,
        ...extra,
        logged,
        spanish: ENGLISH_TALK.map((t) => fakeTranslation(t, "es")),
        engine: (overrides: EngineEnv = {}, engineOpts: CreateTranslationEngineOptions = {}) =>
          createTranslationEngine(name, engineEnv(fixture, overrides), {
            log: (level, event, fields = {}) => logged.push({ level, event, fields }),
            ...engineOpts,
          }),
        reset: () => {
          extra.reset();
          logged.length = 0;
        },
        close: () => fixture.fake.close(),
      };
    },
  };
}

function languageModel<F extends FakeHttpServer & { chatReply: ChatReply }>(
  name: "replicate" | "openai-compatible",
  model: string,
  opts: HostedFake<F>,
): TranslationBackend<LanguageModelHarness<F>> {
  return hosted(name, model, opts, ({ fake }) => {
    const heard: ChatTurn[][] = [];
    let queued: string[] = [];
    const reply: ChatReply = (turns, ctx) => {
      heard.push([...turns]);
      return queued.shift() ?? standInTranslator(turns, ctx);
    };
    fake.chatReply = reply;
    return {
      heard,
      says: (...answers: string[]) => {
        queued = answers;
      },
      reset: () => {
        fake.reset();
        fake.chatReply = reply;
        queued = [];
        heard.length = 0;
      },
    };
  });
}

export const WORKERS_AI_M2M100 = hosted("workers-ai", WORKERS_AI_TRANSLATION_DEFAULT_MODEL, WORKERS_AI_FAKE, ({ fake }) => ({
  reset: () => fake.reset(),
}));

export const OPENAI_COMPATIBLE_TRANSLATOR = languageModel(
  "openai-compatible",
  OPENAI_COMPATIBLE_TRANSLATION_DEFAULT_MODEL,
  OPENAI_COMPATIBLE_FAKE,
);
export const REPLICATE_TRANSLATOR = languageModel("replicate", REPLICATE_TRANSLATION_DEFAULT_MODEL, REPLICATE_FAKE);

export const HOSTED_TRANSLATION_BACKENDS: TranslationBackend<HostedTranslationHarness>[] = [
  WORKERS_AI_M2M100,
  OPENAI_COMPATIBLE_TRANSLATOR,
  REPLICATE_TRANSLATOR,
];

export const LANGUAGE_MODEL_TRANSLATORS: TranslationBackend<LanguageModelHarness>[] = [OPENAI_COMPATIBLE_TRANSLATOR, REPLICATE_TRANSLATOR];

export const ALL_TRANSLATION_BACKENDS: TranslationBackend[] = [APERTIUM_APY, APERTIUM_CLI, ...HOSTED_TRANSLATION_BACKENDS];
