import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { openImage } from "../../media/images";
import type { BodyResult, Config, FaceResult, Human } from "@vladmandic/human";
import { isStepFailure } from "../../../contracts/step-failure";
import { StepFailure } from "../../../contracts/step-failure";
import type { EngineEnv } from "../config";
import type { AnalyzeOptions, BodyObservation, Box, FaceObservation, FrameObservation, SampledFrame, VisionEngine } from "./interface";
import { salientRegion } from "./saliency";

/**
 * @vladmandic/human on the tfjs WebAssembly backend: offline, CPU only, models from the package's
 * own `models/` folder. Only models that ship in the tarball are used: BlazeFace (detector),
 * FaceMesh (468 landmarks: mouth and eyes), Iris, and MoveNet Lightning for the body (one person).
 * The backend computes on one thread, so frames are spread over this thread and `threads - 1`
 * helper worker threads (local-human-worker.ts), each with its own models.
 */

const require = createRequire(import.meta.url);

/** Never resolvable (RFC 2606), so if the shim were missing the load fails at once instead of going out. */
const MODEL_URL_PREFIX = "http://human-models.invalid/";

const FACE_MODEL = "blazeface";
const MESH_MODEL = "facemesh";
const IRIS_MODEL = "iris";
const BODY_MODEL = "movenet-lightning";

export interface LocalHumanConfig {
  /** The package folder (`node_modules/@vladmandic/human`): the bundle, its version and `models/`. */
  humanDir: string;
  /** Folder with `tfjs-backend-wasm*.wasm`, trailing slash included (tfjs concatenates). */
  wasmDir: string;
  maxFaces: number;
  /** Detector confidence below which a face is dropped. */
  minFaceScore: number;
  /**
   * Frames analysed at once: this thread plus `threads - 1` worker threads, each with its own copy of
   * the models (tfjs's WebAssembly backend runs on one thread, so one engine uses one core).
   */
  threads: number;
}

/**
 * `VISION_HUMAN_DIR`, `VISION_WASM_DIR`, `VISION_MAX_FACES` (20), `VISION_MIN_FACE_SCORE` (0.5),
 * `VISION_THREADS` (2, at most the cores).
 */
export function localHumanConfigFromEnv(env: EngineEnv): LocalHumanConfig {
  // The package's `exports` map points `node` at the tfjs-node build; the folder is what we need.
  const humanDir = env.VISION_HUMAN_DIR ?? path.dirname(path.dirname(require.resolve("@vladmandic/human")));
  const wasmDir = env.VISION_WASM_DIR ?? path.dirname(require.resolve("@tensorflow/tfjs-backend-wasm"));
  const maxFaces = Number(env.VISION_MAX_FACES);
  const minScore = Number(env.VISION_MIN_FACE_SCORE);
  const threads = Number(env.VISION_THREADS);
  return {
    humanDir,
    wasmDir: wasmDir.endsWith(path.sep) ? wasmDir : wasmDir + path.sep,
    maxFaces: Number.isInteger(maxFaces) && maxFaces > 0 ? maxFaces : 20,
    minFaceScore: Number.isFinite(minScore) && minScore > 0 && minScore < 1 ? minScore : 0.5,
    threads: Number.isInteger(threads) && threads > 0 ? threads : Math.min(2, os.availableParallelism()),
  };
}

/**
 * Human keeps each loaded model in a module-level variable and every `Human` reloads them into those
 * variables, so two live instances would share (and one's cleanup would dispose) the other's models.
 * Engines therefore share one instance per process, counted: the first `analyze` loads it, the last
 * `close` disposes the models. Detections are serialised on it, since Human keeps per-call state.
 */
interface Runtime {
  key: string;
  human: Promise<Human>;
  users: number;
  /** Tail of the detection queue. */
  tail: Promise<unknown>;
  /** Frames waiting for a lane (this thread or a helper worker), first come first served. */
  queue: Job[];
  /** Frames in this thread's hands: up to LANE_DEPTH, so the next one is decoded while one is detected. */
  mainInFlight: number;
  /** Frames this thread has analysed. */
  mainDone: number;
  helpers: Helper[];
  /** The sequence, time and face count of the last frame this thread analysed, when it had a sequence key: what the next frame may follow. */
  last: { sequence: string; t: number; faces: number } | null;
  /** Runs of the face detector model in this thread: a frame during which it did not run had its faces followed. */
  detector: { runs: number };
}
let shared: Runtime | null = null;

type Want = { bodies: boolean; eyes: boolean; sequence?: string };

interface Job {
  frame: SampledFrame;
  want: Want;
  signal: AbortSignal;
  resolve: (o: FrameObservation) => void;
  reject: (err: unknown) => void;
}

/**
 * Following faces through a sequence (AnalyzeOptions.sequence) uses Human's own video mode: on a
 * frame that follows the thread's previous one, the boxes come from the previous frame's face mesh
 * and the detector (BlazeFace, about 29 ms of a frame's ~38 ms here; the mesh is about 7 ms) runs
 * only on every TRACK_DETECT_EVERY-th frame, or when Human sees the picture change by more than
 * TRACK_MAX_CHANGE (its mean squared difference per channel over 255: within one shot of the test
 * reels at most 0.45 between frames 0.67 s apart, at a cut 25-28), or when no face is left; a frame
 * on which a followed face is lost is detected again. A face entering without a cut is seen late.
 */
const TRACK_DETECT_EVERY = 3;
const TRACK_MAX_CHANGE = 1.5;
/** Frames further apart in one sequence than this are detected anew: a face moves too far in between. */
const TRACK_MAX_GAP_SEC = 1.5;
/** Human's skipTime, in ms: tracking is bounded by frames and gaps above, never by the wall clock. */
const TRACK_NO_TIME_LIMIT_MS = 24 * 3600 * 1000;

/** Frames a lane holds at once: one being detected, the next being decoded. */
const LANE_DEPTH = 2;

/** A helper worker's answer for one frame. */
type HelperReply =
  { id: number; observation: FrameObservation } | { id: number; error: { message: string; code?: string; retryable?: boolean } };

/** The worker itself stopped (could not start, crashed): its frames go back to the queue, not to the caller. */
class LaneDown extends Error {}

/**
 * A worker thread running its own local-human engine (threads 1). A worker that cannot start (no
 * TypeScript loader, no memory) only takes its lane away: analysis goes on in the others.
 */
class Helper {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (o: FrameObservation) => void; reject: (err: unknown) => void }>();
  private nextId = 0;
  inFlight = 0;
  done = 0;
  down: Error | null = null;

  constructor(cfg: LocalHumanConfig) {
    const self = fileURLToPath(import.meta.url);
    const file = path.join(path.dirname(self), `local-human-worker${path.extname(self)}`);
    // A worker inherits the process's flags; run from TypeScript sources without a loader in them
    // (a test runner that transforms files itself), it needs tsx to read its own.
    const needsLoader = file.endsWith(".ts") && !process.execArgv.some((a) => a.includes("tsx"));
    this.worker = new Worker(file, {
      workerData: { config: { ...cfg, threads: 1 } },
      ...(needsLoader ? { execArgv: [...process.execArgv, "--import", "tsx"] } : {}),
    });
    // An idle helper must not keep the process alive; a busy one must (see run).
    this.worker.unref();
    this.worker.on("message", (reply: HelperReply) => {
      const w = this.waiting.get(reply.id);
      if (!w) return;
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) this.worker.unref();
      this.done++;
      if ("observation" in reply) w.resolve(reply.observation);
      else
        w.reject(
          reply.error.code !== undefined
            ? new StepFailure(reply.error.code, reply.error.message, reply.error.retryable ?? true)
            : new Error(reply.error.message),
        );
    });
    this.worker.on("error", (err) => this.fail(err));
    this.worker.on("exit", (code) => this.fail(new Error(`vision helper worker exited with ${code}`)));
  }

  run(frame: SampledFrame, want: Want): Promise<FrameObservation> {
    if (this.down) return Promise.reject(new LaneDown(this.down.message));
    const id = this.nextId++;
    // While a frame is out, the worker holds the event loop open: a caller awaiting only this answer
    // must not see the process end under it.
    this.worker.ref();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, frame, want });
    });
  }

  private fail(err: Error): void {
    this.down ??= err;
    for (const w of this.waiting.values()) w.reject(new LaneDown(err.message));
    this.waiting.clear();
  }

  async terminate(): Promise<void> {
    this.down ??= new Error("vision helper worker stopped");
    await this.worker.terminate();
  }
}

/** Hands queued frames to free lanes: this thread first (no copying), then the helpers. */
function pump(rt: Runtime, cfg: LocalHumanConfig): void {
  for (;;) {
    const helper = rt.mainInFlight < LANE_DEPTH ? null : rt.helpers.find((h) => !h.down && h.inFlight < LANE_DEPTH);
    if (rt.mainInFlight >= LANE_DEPTH && !helper) return;
    const job = rt.queue.shift();
    if (!job) return;
    if (job.signal.aborted) {
      job.reject(job.signal.reason);
      continue;
    }
    if (!helper) {
      rt.mainInFlight++;
      rt.human
        .then((human) => analyzeFrame(rt, human, cfg, job.frame, job.want))
        .then(job.resolve, job.reject)
        .finally(() => {
          rt.mainDone++;
          rt.mainInFlight--;
          pump(rt, cfg);
        });
    } else {
      helper.inFlight++;
      helper
        .run(job.frame, job.want)
        .then(job.resolve, (err: unknown) => {
          // The worker is gone, not the frame: someone else takes it.
          if (err instanceof LaneDown) rt.queue.unshift(job);
          else job.reject(err);
        })
        .finally(() => {
          helper.inFlight--;
          pump(rt, cfg);
        });
    }
  }
}

function acquire(cfg: LocalHumanConfig): Runtime {
  const key = `${cfg.humanDir}|${cfg.wasmDir}`;
  if (shared && shared.key !== key) {
    throw new StepFailure(
      "engine_unavailable",
      `vision engine local-human is already loaded from ${shared.key.split("|")[0]} in this runner`,
      true,
    );
  }
  if (!shared) {
    const detector = { runs: 0 };
    const runtime: Runtime = {
      key,
      human: loadHuman(cfg).then((human) => countDetectorRuns(human, detector)),
      users: 0,
      tail: Promise.resolve(),
      queue: [],
      mainInFlight: 0,
      mainDone: 0,
      helpers: Array.from({ length: Math.max(0, cfg.threads - 1) }, () => new Helper(cfg)),
      last: null,
      detector,
    };
    // A failed load must not stick: the next engine tries again.
    runtime.human.catch(() => {
      if (shared === runtime) shared = null;
      for (const h of runtime.helpers) void h.terminate();
    });
    shared = runtime;
  }
  shared.users++;
  return shared;
}

async function release(runtime: Runtime): Promise<void> {
  runtime.users--;
  if (runtime.users > 0) return;
  if (shared === runtime) shared = null;
  await Promise.all(runtime.helpers.map((h) => h.terminate()));
  const human = await runtime.human.catch(() => null);
  await runtime.tail.catch(() => undefined);
  if (!human) return;
  for (const model of Object.values(human.models.models)) model?.dispose();
  human.models.reset();
}

function humanConfig(cfg: LocalHumanConfig): Partial<Config> {
  // Human's config types make every section's every field required; these objects set what matters
  // and Human deep-merges them over its defaults, hence the casts.
  const off = { enabled: false };
  return {
    backend: "wasm",
    wasmPath: cfg.wasmDir,
    wasmPlatformFetch: false,
    modelBasePath: MODEL_URL_PREFIX,
    debug: false,
    warmup: "none",
    // Frames are independent stills, not a video stream: no result caching or frame skipping.
    cacheSensitivity: 0,
    filter: { enabled: false } as Config["filter"],
    face: {
      enabled: true,
      detector: {
        modelPath: `${FACE_MODEL}.json`,
        rotation: false,
        maxDetected: cfg.maxFaces,
        minConfidence: cfg.minFaceScore,
        skipFrames: 0,
        skipTime: 0,
        return: false,
      },
      mesh: { enabled: true, modelPath: `${MESH_MODEL}.json` },
      iris: { enabled: true, modelPath: `${IRIS_MODEL}.json`, skipFrames: 0, skipTime: 0 },
      attention: off,
      emotion: off,
      description: off,
      antispoof: off,
      liveness: off,
      gear: off,
    } as unknown as Config["face"],
    body: { enabled: true, modelPath: `${BODY_MODEL}.json`, maxDetected: 1, skipFrames: 0, skipTime: 0 } as Config["body"],
    hand: off as Config["hand"],
    object: off as Config["object"],
    segmentation: off as Config["segmentation"],
    // Gestures are recomputed below from the mesh, with numbers instead of strings.
    gesture: { enabled: false },
  };
}

/**
 * tfjs-backend-wasm's Emscripten glue, when it starts, adds process handlers that rethrow every
 * uncaught exception and unhandled rejection; in the runner that would turn a logged stray rejection
 * (main.ts) into a crash. Handlers added while `fn` runs are taken off again.
 */
async function keepingProcessHandlers<T>(fn: () => Promise<T>): Promise<T> {
  const events = ["uncaughtException", "unhandledRejection"];
  // Process's typed overloads do not take a union of event names; the plain emitter API does.
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(events.map((e) => [e, new Set(emitter.listeners(e))]));
  try {
    return await fn();
  } finally {
    for (const e of events) {
      for (const l of emitter.listeners(e)) if (!before.get(e)!.has(l)) emitter.removeListener(e, l as (...args: unknown[]) => void);
    }
  }
}

async function loadHuman(cfg: LocalHumanConfig): Promise<Human> {
  return keepingProcessHandlers(() => loadHumanModels(cfg));
}

async function loadHumanModels(cfg: LocalHumanConfig): Promise<Human> {
  const { Human } = require(path.join(cfg.humanDir, "dist", "human.node-wasm.js")) as typeof import("@vladmandic/human");
  const config = humanConfig(cfg);
  // The constructor fixes where models load from; `reset` then sets `env.initial`, the only thing that
  // makes Human drop its module-level models. A new instance does not: an engine created after the
  // last one closed would otherwise run on disposed weights. `reset` also reverts the config, hence
  // the same config again on `load`.
  const human = new Human(config);
  human.reset();
  const modelDir = path.join(cfg.humanDir, "models");
  // tfjs reads models with the platform fetch (globalThis.fetch in Node), which cannot read files.
  // The shim answers only the private prefix and only while the models load; tfjs does not fetch later.
  const realFetch = globalThis.fetch;
  const shim: typeof fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(MODEL_URL_PREFIX)) return realFetch(input, init);
    const file = path.join(modelDir, path.basename(new URL(url).pathname));
    try {
      const body = await readFile(file);
      return new Response(body, { headers: { "content-type": file.endsWith(".json") ? "application/json" : "application/octet-stream" } });
    } catch {
      return new Response(`no model file ${file}`, { status: 404 });
    }
  };
  globalThis.fetch = shim;
  try {
    await human.load(config);
  } catch (err) {
    throw new StepFailure("engine_unavailable", `vision engine local-human could not load its models: ${(err as Error).message}`, true);
  } finally {
    if (globalThis.fetch === shim) globalThis.fetch = realFetch;
  }
  // Human files models by family (`movenet`), not by file name.
  const missing = [FACE_MODEL, MESH_MODEL, IRIS_MODEL, "movenet"].filter((m) => !human.models.models[m]);
  if (missing.length > 0) {
    for (const model of Object.values(human.models.models)) model?.dispose();
    throw new StepFailure("engine_unavailable", `vision engine local-human: models not found in ${modelDir}: ${missing.join(", ")}`, true);
  }
  return human;
}

/** Counts the face detector model's runs (Human runs it once per detected frame, never on a followed one). */
function countDetectorRuns(human: Human, counter: { runs: number }): Human {
  const model = human.models.models[FACE_MODEL];
  if (model) {
    const execute = model.execute.bind(model);
    model.execute = (inputs, outputs) => {
      counter.runs++;
      return execute(inputs, outputs);
    };
  }
  return human;
}

function humanVersion(humanDir: string): string {
  try {
    return (require(path.join(humanDir, "package.json")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

export class LocalHumanEngine implements VisionEngine {
  readonly engine = "local-human";
  readonly model: string;
  private runtime: Runtime | null = null;
  private closed = false;
  /** Calls in progress, so that close can stop their frames still waiting for a lane. */
  private readonly calls = new Set<AbortController>();

  constructor(private readonly config: LocalHumanConfig) {
    this.model = `human-${humanVersion(config.humanDir)} ${FACE_MODEL}+${MESH_MODEL}+${IRIS_MODEL}+${BODY_MODEL}`;
  }

  /** Frames this engine analyses at once; a caller feeding frames one by one keeps this many in flight. */
  get parallelism(): number {
    return this.config.threads * LANE_DEPTH;
  }

  async analyze(frames: readonly SampledFrame[], opts: AnalyzeOptions): Promise<FrameObservation[]> {
    if (this.closed) throw new Error("vision engine local-human is closed");
    opts.signal.throwIfAborted();
    this.runtime ??= acquire(this.config);
    const rt = this.runtime;
    const want: Want = {
      bodies: opts.bodies ?? true,
      eyes: opts.eyes ?? true,
      ...(opts.sequence !== undefined ? { sequence: opts.sequence } : {}),
    };
    const call = new AbortController();
    const signal = AbortSignal.any([opts.signal, call.signal]);
    const jobs: Job[] = [];
    const results = frames.map(
      (frame) =>
        new Promise<FrameObservation>((resolve, reject) => {
          jobs.push({ frame, want, signal, resolve, reject });
        }),
    );
    // An abort, a failed frame or close drops this call's frames still waiting.
    const drop = () => {
      rt.queue = rt.queue.filter((j) => {
        if (!jobs.includes(j)) return true;
        j.reject(signal.reason);
        return false;
      });
    };
    signal.addEventListener("abort", drop, { once: true });
    this.calls.add(call);
    rt.queue.push(...jobs);
    pump(rt, this.config);
    try {
      return await Promise.all(results);
    } catch (err) {
      call.abort(err);
      throw err;
    } finally {
      signal.removeEventListener("abort", drop);
      this.calls.delete(call);
    }
  }

  /** Each thread's share of the work since the models loaded, and why a helper stopped: what an operator checks. */
  lanes(): Array<{ thread: "this" | "worker"; frames: number; down: string | null }> {
    const rt = this.runtime;
    if (!rt) return [];
    return [
      { thread: "this", frames: rt.mainDone, down: null },
      ...rt.helpers.map((h) => ({ thread: "worker" as const, frames: h.done, down: h.down?.message ?? null })),
    ];
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const call of this.calls) call.abort(new Error("vision engine local-human is closed"));
    const runtime = this.runtime;
    this.runtime = null;
    if (runtime) await release(runtime);
  }
}

async function analyzeFrame(
  runtime: Runtime,
  human: Human,
  cfg: LocalHumanConfig,
  frame: SampledFrame,
  want: Want,
): Promise<FrameObservation> {
  const { data, info } = await openImage(frame.path).removeAlpha().toColourspace("srgb").raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const salientP = salientRegion({ data, width, height, channels: 3 });
  const detect = async () => {
    // Runs in this thread's detection order, so `last` is the frame detected just before this one.
    const prev = runtime.last;
    const follow =
      want.sequence !== undefined && prev?.sequence === want.sequence && frame.t > prev.t && frame.t - prev.t <= TRACK_MAX_GAP_SEC;
    runtime.last = null;
    const runsBefore = runtime.detector.runs;
    const tensor = human.tf.tensor3d(new Uint8Array(data.buffer, data.byteOffset, data.length), [height, width, 3], "int32");
    // Human merges a call's config into its own and keeps it: every call says what it wants. A frame
    // of a sequence keeps Human's change check on (it remembers the frame for the next one); only a
    // frame that follows the previous one may skip the detector.
    const run = (mayFollow: boolean) =>
      human.detect(tensor, {
        cacheSensitivity: want.sequence !== undefined ? TRACK_MAX_CHANGE : 0,
        body: { enabled: want.bodies },
        face: {
          iris: { enabled: want.eyes },
          detector: { skipFrames: mayFollow ? TRACK_DETECT_EVERY - 1 : 0, skipTime: mayFollow ? TRACK_NO_TIME_LIMIT_MS : 0 },
        },
      } as Partial<Config>);
    try {
      let r = await run(follow);
      // A followed face the mesh no longer finds where it was (it moved too far, or left) is looked
      // for again on this frame rather than missing until the next detection.
      if (follow && runtime.detector.runs === runsBefore && r.face.length < prev.faces) r = await run(false);
      if (want.sequence !== undefined) runtime.last = { sequence: want.sequence, t: frame.t, faces: r.face.length };
      return { r, detected: runtime.detector.runs > runsBefore };
    } finally {
      tensor.dispose();
    }
  };
  const result = runtime.tail.then(detect, detect);
  runtime.tail = result.catch(() => undefined);
  const [{ r, detected }, salient] = await Promise.all([result, salientP]);
  if (r.error) throw new Error(`vision engine local-human failed on ${frame.path}: ${r.error}`);
  return {
    t: frame.t,
    faces: r.face.filter((f) => f.boxScore >= cfg.minFaceScore).map((f) => faceObservation(f, width, height, want.eyes)),
    bodies: (want.bodies ? r.body : []).map((b: BodyResult): BodyObservation => ({
      box: normalise(b.box, width, height),
      score: b.score,
    })),
    salient,
    ...(want.sequence !== undefined ? { followed: !detected } : {}),
  };
}

/** A failure as a helper worker sends it back (a StepFailure keeps its code). */
export function describeFailure(err: unknown): { message: string; code?: string; retryable?: boolean } {
  if (isStepFailure(err)) return { message: err.message, code: err.code, retryable: err.retryable };
  return { message: err instanceof Error ? err.message : String(err) };
}

function normalise([x, y, w, h]: readonly number[], width: number, height: number): Box {
  const clamp = (v: number) => Math.min(1, Math.max(0, v));
  const x0 = clamp((x ?? 0) / width);
  const y0 = clamp((y ?? 0) / height);
  const x1 = clamp(((x ?? 0) + (w ?? 0)) / width);
  const y1 = clamp(((y ?? 0) + (h ?? 0)) / height);
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** Below this lid gap over eye height Human's gestures call the eye blinking. */
const BLINK_RATIO = 0.2;

function faceObservation(f: FaceResult, width: number, height: number, eyes: boolean): FaceObservation {
  const m = f.mesh;
  // The mesh is 468 points (478 with iris); fewer means the mesh model did not run on this face.
  const hasMesh = m.length >= 468;
  const dy = (a: number, b: number) => Math.abs((m[a]?.[1] ?? 0) - (m[b]?.[1] ?? 0));
  let mouthOpen: number | null = null;
  let eyesOpen: boolean | null = null;
  if (hasMesh) {
    // Human's own "mouth N% open" gesture: inner-lip gap (13, 14) over forehead-to-chin (10, 152),
    // times 5; a wide-open mouth is about a fifth of the face height.
    const faceHeight = dy(10, 152);
    mouthOpen = faceHeight > 0 ? Math.min(1, (5 * dy(13, 14)) / faceHeight) : null;
    // Human's blink gesture: eyelid gap over the eye region's height, per eye; without the iris
    // model the lids are not refined, so a caller that did not ask gets null rather than a guess.
    const left = dy(374, 386) / dy(443, 450);
    const right = dy(145, 159) / dy(223, 230);
    eyesOpen = eyes && Number.isFinite(left) && Number.isFinite(right) ? left >= BLINK_RATIO && right >= BLINK_RATIO : null;
  }
  // Human's sign convention, uncalibrated: only the magnitude (how far from facing the camera) is relied on.
  const yaw = f.rotation?.angle.yaw;
  return {
    box: normalise(f.box, width, height),
    score: f.boxScore,
    mouthOpen,
    yawDeg: typeof yaw === "number" && Number.isFinite(yaw) ? (yaw * 180) / Math.PI : null,
    eyesOpen,
  };
}
