import type { VisualChunk } from "../../contracts/transcript";
import type { EngineEnv } from "../../gpu-runner/engines/config";
import { createTextEngine, type CreateTextEngineOptions } from "../../gpu-runner/engines/text/factory";
import type { TextDocument, TextEngine, TextEngineName } from "../../gpu-runner/engines/text/interface";
import { OPENAI_COMPATIBLE_TEXT_DEFAULT_MODEL } from "../../gpu-runner/engines/text/openai-compatible";
import { REPLICATE_TEXT_DEFAULT_MODEL } from "../../gpu-runner/engines/text/replicate";
import { WORKERS_AI_TEXT_DEFAULT_MODEL } from "../../gpu-runner/engines/text/workers-ai";
import type { LogLevel } from "../../gpu-runner/log";
import type { ChatReply, ChatTurn } from "./fakes/chat";
import type { FakeHttpServer } from "./fakes/fake-http";
import { engineEnv, OPENAI_COMPATIBLE_FAKE, REPLICATE_FAKE, startHosted, WORKERS_AI_FAKE } from "./hosted-fakes";
import type { HostedFake, HostedFixture } from "./hosted-fakes";

/**
 * Every hosted text backend against its fake API, where a stand-in language model
 * (`standInTextModel`) answers. The conformance suite runs over this list; the per-backend format
 * tests take one entry.
 */
export type HostedTextEngine = TextEngine & { readonly name: string; readonly model: string };

export interface LogEntry {
  level: LogLevel;
  event: string;
  fields: Record<string, unknown>;
}

export interface HostedTextHarness<
  F extends FakeHttpServer & { chatReply: ChatReply } = FakeHttpServer & { chatReply: ChatReply },
> extends HostedFixture<F> {
  /** An engine aimed at the fake; `env` adds or overrides variables; its log goes to `logged`. */
  engine(env?: EngineEnv, opts?: CreateTextEngineOptions): HostedTextEngine;
  /** Makes the model say these answers, one per request in turn, then the stand-in again (until reset). */
  says(...answers: string[]): void;
  /** Every conversation the model heard, in order (the backend's own wire format aside). */
  heard: ChatTurn[][];
  /** What the engines logged. */
  logged: LogEntry[];
  reset(): void;
  close(): Promise<void>;
}

export interface HostedTextBackend<H extends HostedTextHarness = HostedTextHarness> {
  name: Exclude<TextEngineName, "local-extractive">;
  /** The model the engine records. */
  model: string;
  start(): Promise<H>;
}

/** A short talk on growing tomatoes: six segments, the first starting a little after 0. */
export const TOMATO_TALK: TextDocument = {
  textSourceId: "txt_tomatoes",
  language: "en",
  durationSec: 95,
  segments: [
    { id: 0, start: 0.4, end: 12, text: "Growing tomatoes on a small balcony is easier than you think." },
    { id: 1, start: 12, end: 27.5, text: "Pick a sunny corner, a deep pot and a cherry variety that stays compact." },
    { id: 2, start: 27.5, end: 44, text: "Water at the base every morning, never on the leaves, to keep blight away." },
    { id: 3, start: 44, end: 61.2, text: "Once the first flowers open, feed every two weeks with a tomato fertiliser." },
    { id: 4, start: 61.2, end: 80, text: "Pinch out the side shoots so the plant puts its energy into fruit." },
    { id: 5, start: 80, end: 95, text: "Harvest when the fruit is deep red and slightly soft to the touch." },
  ],
};

export const TOMATO_SCENES: VisualChunk[] = [
  { index: 0, start: 0, end: 40, summary: "A woman on a balcony beside potted plants.", descriptors: { faces: 1 } },
  { index: 1, start: 40, end: 95, summary: "Close-ups of hands pinching tomato shoots.", descriptors: { faces: 0 } },
];

/** A valid metadata answer about TOMATO_TALK, as the model's JSON object, `overrides` applied. */
export function metadataAnswer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: "Balcony tomatoes",
    description: "How to grow tomatoes in a pot.",
    keywords: ["tomatoes"],
    categories: [],
    chapters: [{ segmentId: 0, title: "Start" }],
    ...overrides,
  };
}

/** A valid summary answer about TOMATO_TALK, as the model's JSON object, `overrides` applied. */
export function summaryAnswer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    shortSynopsis: "Tomatoes on a balcony.",
    longSynopsis: "A short guide to growing tomatoes on a balcony.",
    seoDescriptions: ["one", "two", "three"],
    socialHooks: ["a", "b", "c"],
    keywords: ["tomatoes", "balcony", "pots", "watering", "harvest"],
    classification: [],
    visualChunksUsed: [],
    ...overrides,
  };
}

export const STANDIN_CONFIDENCE = 0.8;

/**
 * A stand-in language model that answers valid JSON built from what it is shown: the transcript
 * lines (`[id @ start s] text`), the scene lines (`#index …`) and the IAB tier-1 list of the
 * instructions. The title is the first segment's first six words; chapters open on the first
 * segment and the one shown halfway; the category is the first tier-1 id offered; a summary uses
 * every scene shown. It knows nothing of videos: it shows that the material reaches the model and
 * that a valid answer comes back whole.
 */
export const standInTextModel: ChatReply = (turns) => {
  const instructions = turns
    .filter((t) => t.role === "system")
    .map((t) => t.content)
    .join("\n");
  const material = turns
    .filter((t) => t.role !== "system")
    .map((t) => t.content)
    .join("\n");
  const segments = [...material.matchAll(/^\[(\d+) @ [\d.]+ s\] (.*)$/gm)].map((m) => ({ id: Number(m[1]), text: m[2]! }));
  const scenes = [...material.matchAll(/^#(\d+) /gm)].map((m) => Number(m[1]));
  const iabId = /IAB tier-1 categories \(id: name\): ([^:]+):/.exec(instructions)?.[1] ?? "unknown";
  const categories = [{ id: iabId, confidence: STANDIN_CONFIDENCE }];
  const words = segments.flatMap((s) => s.text.toLowerCase().match(/[a-z]{6,}/g) ?? []);
  const keywords = [...new Set(words)];
  const text = segments.map((s) => s.text).join(" ");
  if (instructions.includes('"shortSynopsis"')) {
    const sentences = segments.map((s) => s.text);
    return JSON.stringify({
      shortSynopsis: (sentences[0] ?? "A video.").slice(0, 280),
      longSynopsis: (text || "A video.").slice(0, 2000),
      seoDescriptions: [0, 1, 2].map((i) => (sentences[i] ?? sentences[0] ?? "A video.").slice(0, 160)),
      socialHooks: [0, 1, 2].map((i) => (sentences[i] ?? sentences[0] ?? "A video.").slice(0, 100)),
      keywords: keywords.slice(0, 5),
      classification: categories,
      visualChunksUsed: scenes,
    });
  }
  const first = segments[0];
  const middle = segments[Math.floor(segments.length / 2)];
  const opening = (s: { text: string } | undefined) => (s?.text ?? "untitled").split(" ").slice(0, 6).join(" ");
  return JSON.stringify({
    title: opening(first),
    description: text.slice(0, 300),
    keywords: keywords.slice(0, 15),
    categories,
    chapters: [
      { segmentId: first?.id ?? 0, title: opening(first) },
      ...(middle && middle !== first ? [{ segmentId: middle.id, title: opening(middle) }] : []),
    ],
  });
};

function hosted<F extends FakeHttpServer & { chatReply: ChatReply }>(
  name: HostedTextBackend["name"],
  model: string,
  opts: HostedFake<F>,
): HostedTextBackend<HostedTextHarness<F>> {
  return {
    name,
    model,
    async start() {
      const fixture = await startHosted(opts, "TEXT");
      const { fake } = fixture;
      const heard: ChatTurn[][] = [];
      const logged: LogEntry[] = [];
      let queued: string[] = [];
      const model: ChatReply = (turns, ctx) => {
        heard.push([...turns]);
        return queued.shift() ?? standInTextModel(turns, ctx);
      };
      fake.chatReply = model;
      return {
        ...fixture,
        heard,
        logged,
        engine: (overrides, engineOpts = {}) =>
          createTextEngine(name, engineEnv(fixture, overrides), {
            log: (level, event, fields = {}) => logged.push({ level, event, fields }),
            ...engineOpts,
          }) as HostedTextEngine,
        says: (...answers) => {
          queued = answers;
        },
        reset: () => {
          fake.reset();
          fake.chatReply = model;
          queued = [];
          heard.length = 0;
          logged.length = 0;
        },
        close: () => fake.close(),
      };
    },
  };
}

export const OPENAI_COMPATIBLE = hosted("openai-compatible", OPENAI_COMPATIBLE_TEXT_DEFAULT_MODEL, OPENAI_COMPATIBLE_FAKE);

export const WORKERS_AI = hosted("workers-ai", WORKERS_AI_TEXT_DEFAULT_MODEL, WORKERS_AI_FAKE);

export const REPLICATE = hosted("replicate", REPLICATE_TEXT_DEFAULT_MODEL, REPLICATE_FAKE);

export const HOSTED_TEXT_BACKENDS: HostedTextBackend[] = [OPENAI_COMPATIBLE, WORKERS_AI, REPLICATE];
