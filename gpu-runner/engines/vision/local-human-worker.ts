import { parentPort, workerData } from "node:worker_threads";
import type { SampledFrame } from "./interface";
import { describeFailure, LocalHumanEngine, type LocalHumanConfig } from "./local-human";

/**
 * A helper thread of the local-human engine (see `Helper` in local-human.ts): its own engine and
 * models, one frame per message, answered with the observation or the failure.
 */

const { config } = workerData as { config: LocalHumanConfig };
const engine = new LocalHumanEngine({ ...config, threads: 1 });
// The main thread stops handing out frames on abort; a frame already here finishes.
const never = new AbortController().signal;

parentPort?.on("message", (m: { id: number; frame: SampledFrame; want: { bodies: boolean; eyes: boolean; sequence?: string } }) => {
  engine.analyze([m.frame], { signal: never, ...m.want }).then(
    ([observation]) => parentPort?.postMessage({ id: m.id, observation }),
    (err: unknown) => parentPort?.postMessage({ id: m.id, error: describeFailure(err) }),
  );
});
