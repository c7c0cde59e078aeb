import type { ServiceName } from "../../contracts/services/types";
import type { QuotaMeter } from "../../contracts/settings";
import { clipGenerationWorker } from "./clip-generation";
import { dubbingWorker } from "./dubbing/index";
import { indexerWorker } from "./indexer/index";
import { metadataWorker } from "./metadata/index";
import { summarizationWorker } from "./summarization/index";
import { testWorker } from "./test";
import { thumbnailWorker } from "./thumbnail";
import { transcriptionWorker } from "./transcription/index";
import { translationWorker } from "./translation/index";
import { voiceConsentWorker } from "./voice-consent/index";
import { voiceCreationWorker } from "./voice-creation/index";
import { transcriptFilesWorker } from "./transcript-files/index";
import type { StepSpec } from "../../contracts/pipelines";
import type { InWorkerStep } from "../../queues/worker-steps";
import type { Env } from "../env";
import type { WorkerService } from "./types";

/** Every service's Worker side, one line each; the compiler names a service that has none. */
export const WORKER_SERVICES = {
  transcription: transcriptionWorker,
  clip_generation: clipGenerationWorker,
  thumbnail: thumbnailWorker,
  metadata: metadataWorker,
  indexer: indexerWorker,
  summarization: summarizationWorker,
  translation: translationWorker,
  dubbing: dubbingWorker,
  voice_creation: voiceCreationWorker,
  transcript_files: transcriptFilesWorker,
  voice_consent: voiceConsentWorker,
  test: testWorker,
} satisfies { [T in ServiceName]: WorkerService<T> };

export function workerService(name: ServiceName): WorkerService {
  return WORKER_SERVICES[name] as WorkerService;
}

/** The in-Worker handler of a step, bound to this Worker's bindings; null when its service has none. */
export function workerStepHandler(step: StepSpec, env: Env): InWorkerStep | null {
  const handler = workerService(step.service).workerSteps?.[step.handler];
  return handler ? (ctx) => handler({ ...ctx, env }) : null;
}

/** Every usage meter, in service order, each once (a service may count with another's, as transcript files do). */
export const METERS: readonly QuotaMeter[] = [
  ...new Set(Object.values(WORKER_SERVICES).flatMap((s: WorkerService) => [...(s.meter ? [s.meter] : []), ...(s.runtimeMeters ?? [])])),
];

/** The service types with a policy payload, in the order the spec lists them for `GET /v1/jobs/policy`. */
export const POLICY_SERVICE_TYPES = (["clip_generation", "transcription", "thumbnail", "translation"] as const).filter(
  (t) => WORKER_SERVICES[t].policy,
) as [
  "clip_generation" | "transcription" | "thumbnail" | "translation",
  ...Array<"clip_generation" | "transcription" | "thumbnail" | "translation">,
];

/** Every service's record routes, by path under `/v1`. */
export const SERVICE_ROUTES = Object.values(WORKER_SERVICES).flatMap((s) => Object.entries(s.routes ?? {}));
