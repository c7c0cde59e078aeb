import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import type { EngineEnv } from "../../gpu-runner/engines/config";
import { createImageEngine } from "../../gpu-runner/engines/image/factory";
import type { CoverRequest, ImageEngine, ImageEngineName } from "../../gpu-runner/engines/image/interface";
import { OPENAI_COMPATIBLE_IMAGE_DEFAULT_MODEL } from "../../gpu-runner/engines/image/openai-compatible";
import { REPLICATE_IMAGE_DEFAULT_MODEL } from "../../gpu-runner/engines/image/replicate";
import { WORKERS_AI_IMAGE_DEFAULT_MODEL } from "../../gpu-runner/engines/image/workers-ai";
import type { FakeHttpServer } from "./fakes/fake-http";
import { engineEnv, OPENAI_COMPATIBLE_FAKE, REPLICATE_FAKE, startHosted, WORKERS_AI_FAKE } from "./hosted-fakes";
import type { HostedFake, HostedFixture } from "./hosted-fakes";

/**
 * Every image backend, each with what it talks to: the local compositor on synthetic frames, the
 * hosted ones against their fake APIs. The conformance suite runs over this list; the per-backend
 * format tests take one entry.
 */
export type Face = CoverRequest["frames"][number]["faces"][number];
export type CoverInput = Omit<CoverRequest, "signal">;

export interface ImageHarness {
  /** An engine for this backend; `env` adds or overrides variables. */
  engine(env?: EngineEnv): ImageEngine;
  /** A request with two synthetic frames (faces on the right of the first), `overrides` applied. */
  request(overrides?: Partial<CoverInput>): CoverInput;
  /** A temp dir for frames a test makes. */
  dir: string;
  /** Makes the next cover take long enough to be cancelled; returns how long to wait before cancelling. */
  hang(): number;
  /** Makes every cover fail; returns the variables the engine must be built with. */
  breakIt(): EngineEnv;
  reset(): void;
  close(): Promise<void>;
}

export interface HostedImageHarness<F extends FakeHttpServer = FakeHttpServer> extends ImageHarness, HostedFixture<F> {}

export interface ImageBackend<H extends ImageHarness = ImageHarness> {
  name: ImageEngineName;
  /** The model the engine records. */
  model: string;
  kind: ImageEngine["kind"];
  start(): Promise<H>;
}

export const TITLE = "Three friends talk about making videos at night";
export const PROMPT = "A cinematic cover for a video about friends making videos at night, neon light";
/** The first synthetic frame's "face": a red block on the right, where a centre crop would lose it. */
export const RIGHT_FACE: Face = { x: 0.78, y: 0.3, width: 0.1, height: 0.2 };

/**
 * A synthetic video frame: a grey-blue gradient with each face drawn as a solid red block, so a test
 * can find the face in the output by colour.
 */
export async function makeFrame(file: string, width: number, height: number, faces: readonly Face[] = [], tint = 0): Promise<string> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const t = x / width;
      raw[i] = Math.round(70 + 60 * t + tint);
      raw[i + 1] = Math.round(90 + 50 * (y / height));
      raw[i + 2] = Math.round(140 - 40 * t);
    }
  }
  for (const f of faces) {
    for (let y = Math.round(f.y * height); y < Math.round((f.y + f.height) * height); y++) {
      for (let x = Math.round(f.x * width); x < Math.round((f.x + f.width) * width); x++) {
        const i = (y * width + x) * 3;
        raw[i] = 230;
        raw[i + 1] = 20;
        raw[i + 2] = 20;
      }
    }
  }
  await sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 92 })
    .toFile(file);
  return file;
}

export function imageEngine(name: ImageEngineName, env: EngineEnv, model?: string): ImageEngine {
  return createImageEngine(name, env, model ? { model } : {});
}

async function framesIn(dir: string): Promise<CoverInput["frames"]> {
  return [
    { path: await makeFrame(path.join(dir, "frame-0.jpg"), 1280, 720, [RIGHT_FACE]), t: 4.2, faces: [RIGHT_FACE] },
    { path: await makeFrame(path.join(dir, "frame-1.jpg"), 1280, 720, [], 40), t: 9.6, faces: [] },
  ];
}

function requestWith(frames: CoverInput["frames"]) {
  return (overrides: Partial<CoverInput> = {}): CoverInput => ({
    width: 1024,
    height: 1024,
    prompt: PROMPT,
    title: TITLE,
    frames,
    variant: 0,
    ...overrides,
  });
}

function hosted<F extends FakeHttpServer>(name: ImageEngineName, model: string, opts: HostedFake<F>): ImageBackend<HostedImageHarness<F>> {
  return {
    name,
    model,
    kind: "generative",
    async start() {
      const fixture = await startHosted(opts, "IMAGE");
      const { fake } = fixture;
      const dir = await mkdtemp(path.join(os.tmpdir(), `image-${name}-`));
      return {
        ...fixture,
        dir,
        engine: (overrides) => imageEngine(name, engineEnv(fixture, overrides)),
        request: requestWith(await framesIn(dir)),
        hang: () => {
          fake.fail({ delayMs: 5_000 });
          return 100;
        },
        breakIt: () => {
          fake.failAlways({ status: 503, message: "model is loading" });
          return {};
        },
        reset: () => fake.reset(),
        async close() {
          await fake.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

export const OPENAI_COMPATIBLE = hosted("openai-compatible", OPENAI_COMPATIBLE_IMAGE_DEFAULT_MODEL, OPENAI_COMPATIBLE_FAKE);

export const WORKERS_AI = hosted("workers-ai", WORKERS_AI_IMAGE_DEFAULT_MODEL, WORKERS_AI_FAKE);

export const REPLICATE = hosted("replicate", REPLICATE_IMAGE_DEFAULT_MODEL, REPLICATE_FAKE);

export const LOCAL_COMPOSITOR: ImageBackend = {
  name: "local-compositor",
  model: "compositor-1 (sharp + @napi-rs/canvas, NotoSans-Bold)",
  kind: "compositor",
  async start() {
    const dir = await mkdtemp(path.join(os.tmpdir(), "image-local-compositor-"));
    const frames = await framesIn(dir);
    let missingFrame = false;
    return {
      engine: (env = {}) => imageEngine("local-compositor", env),
      request: (overrides = {}) =>
        requestWith(missingFrame ? frames.map((f) => ({ ...f, path: path.join(dir, "gone.jpg") })) : frames)(overrides),
      dir,
      // Composing takes tens of milliseconds: cancel as soon as the work has started.
      hang: () => 0,
      breakIt: () => {
        missingFrame = true;
        return {};
      },
      reset: () => {
        missingFrame = false;
      },
      close: () => rm(dir, { recursive: true, force: true }),
    };
  },
};

export const HOSTED_IMAGE_BACKENDS: ImageBackend<HostedImageHarness>[] = [OPENAI_COMPATIBLE, WORKERS_AI, REPLICATE];
export const IMAGE_BACKENDS: ImageBackend[] = [LOCAL_COMPOSITOR, ...HOSTED_IMAGE_BACKENDS];
