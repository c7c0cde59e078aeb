import { CLIP_CATEGORIES } from "../../contracts/clips";
import { createCategoryEngine } from "../../gpu-runner/engines/category/factory";
import type { CategoryEngine, CategoryEngineName, CategoryRequest, VisualSummary } from "../../gpu-runner/engines/category/interface";
import { OPENAI_COMPATIBLE_CATEGORY_DEFAULT_MODEL } from "../../gpu-runner/engines/category/openai-compatible";
import { WORKERS_AI_CATEGORY_DEFAULT_MODEL } from "../../gpu-runner/engines/category/workers-ai";
import type { EngineEnv } from "../../gpu-runner/engines/config";
import type { ChatReply } from "./fakes/chat";
import type { FakeHttpServer } from "./fakes/fake-http";
import { engineEnv, OPENAI_COMPATIBLE_FAKE, startHosted, WORKERS_AI_FAKE } from "./hosted-fakes";
import type { HostedFake, HostedFixture } from "./hosted-fakes";

/**
 * Every category backend, each with what it talks to: the local lexicon on its own, the hosted
 * language models against their fake APIs, where a stand-in model (`quotedCategoryModel`) answers.
 * The conformance suite runs over this list; the per-backend format tests take one entry.
 */
export type CategoryInput = Omit<CategoryRequest, "signal">;

export interface CategoryHarness {
  /** An engine for this backend; `env` adds or overrides variables, `model` is the factory's option. */
  engine(env?: EngineEnv, model?: string): CategoryEngine;
  /** A podcast-like request (two people, slow cuts, podcast words) over every clip category, `overrides` applied. */
  request(overrides?: Partial<CategoryInput>): CategoryInput;
  reset(): void;
  close(): Promise<void>;
}

export interface HostedCategoryHarness<F extends FakeHttpServer & { chatReply: ChatReply } = FakeHttpServer & { chatReply: ChatReply }>
  extends CategoryHarness, HostedFixture<F> {
  /** Makes the model answer `text`, whatever it is asked (until reset). */
  says(text: string): void;
}

export interface CategoryBackend<H extends CategoryHarness = CategoryHarness> {
  name: CategoryEngineName;
  /** The model the engine records. */
  model: string;
  start(): Promise<H>;
}

export const PODCAST_TEXT =
  "welcome back to the podcast everyone, in today's episode my co-host and I have a long conversation about " +
  "making videos at night. thanks to our sponsor, and to all the listeners who subscribe to the show. " +
  "honestly this chat is one of my favourite episodes so far.";

export const TWO_PEOPLE_TALKING: VisualSummary = { meanFaces: 2, maxFaces: 2, cutsPerMinute: 1.5, speechShare: 0.85, speakers: 2 };

export function request(overrides: Partial<CategoryInput> = {}): CategoryInput {
  return { text: PODCAST_TEXT, visual: TWO_PEOPLE_TALKING, categories: [...CLIP_CATEGORIES], ...overrides };
}

export const STANDIN_CONFIDENCE = 0.82;

/**
 * A stand-in language model: it answers, in JSON, the first quoted name in its instructions (the
 * prompt quotes the allowed categories there) with confidence 0.82. It knows nothing of videos; it
 * shows that the allowed list reaches the model and that the answer comes back whole.
 */
export const quotedCategoryModel: ChatReply = (messages) => {
  const instructions = messages
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n");
  const quoted = [...instructions.matchAll(/"([^"]+)"/g)].map((m) => m[1]!).filter((q) => q !== "category" && q !== "confidence");
  return JSON.stringify({ category: quoted[0] ?? "unknown", confidence: STANDIN_CONFIDENCE });
};

export function categoryEngine(name: CategoryEngineName, env: EngineEnv, model?: string): CategoryEngine {
  return createCategoryEngine(name, env, model ? { model } : {});
}

function hosted<F extends FakeHttpServer & { chatReply: ChatReply }>(
  name: CategoryEngineName,
  model: string,
  opts: HostedFake<F>,
): CategoryBackend<HostedCategoryHarness<F>> {
  return {
    name,
    model,
    async start() {
      const fixture = await startHosted(opts, "CATEGORY");
      const { fake } = fixture;
      fake.chatReply = quotedCategoryModel;
      return {
        ...fixture,
        engine: (overrides, m) => categoryEngine(name, engineEnv(fixture, overrides), m),
        request,
        says: (text) => {
          fake.chatReply = () => text;
        },
        reset: () => {
          fake.reset();
          fake.chatReply = quotedCategoryModel;
        },
        close: () => fake.close(),
      };
    },
  };
}

export const OPENAI_COMPATIBLE = hosted("openai-compatible", OPENAI_COMPATIBLE_CATEGORY_DEFAULT_MODEL, OPENAI_COMPATIBLE_FAKE);

export const WORKERS_AI = hosted("workers-ai", WORKERS_AI_CATEGORY_DEFAULT_MODEL, WORKERS_AI_FAKE);

export const LOCAL_LEXICON: CategoryBackend = {
  name: "local-lexicon",
  model: "media-jobs category lexicon v1 (keywords + visual cues)",
  async start() {
    return {
      engine: (env = {}, m) => categoryEngine("local-lexicon", env, m),
      request,
      reset: () => {},
      close: async () => {},
    };
  },
};

export const HOSTED_CATEGORY_BACKENDS: CategoryBackend<HostedCategoryHarness>[] = [OPENAI_COMPATIBLE, WORKERS_AI];
export const CATEGORY_BACKENDS: CategoryBackend[] = [LOCAL_LEXICON, ...HOSTED_CATEGORY_BACKENDS];
