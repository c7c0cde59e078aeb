import type { ServiceType } from "../service-types";
import { clipGenerationService } from "./clip-generation";
import { dubbingService } from "./dubbing";
import { indexerService } from "./indexer";
import { metadataService } from "./metadata";
import { summarizationService } from "./summarization";
import { testService } from "./test";
import { thumbnailService } from "./thumbnail";
import { transcriptionService } from "./transcription";
import { translationService } from "./translation";
import { voiceCreationService } from "./voice-creation";
import type { ServiceContract, ServiceName } from "./types";

/**
 * Every service's contract, one line each. `satisfies` makes the compiler name a service type
 * that has no contract; the Worker's and the runner's indexes are checked the same way.
 */
export const SERVICE_CONTRACTS = {
  transcription: transcriptionService,
  clip_generation: clipGenerationService,
  thumbnail: thumbnailService,
  metadata: metadataService,
  indexer: indexerService,
  summarization: summarizationService,
  translation: translationService,
  dubbing: dubbingService,
  voice_creation: voiceCreationService,
  test: testService,
} satisfies Record<ServiceName, ServiceContract>;

export type ServiceContracts = typeof SERVICE_CONTRACTS;
export type InputOf<T extends ServiceType> = ServiceContracts[T]["input"]["_output"];

/** Every failure code that must not be retried, across services. */
export const NON_RETRYABLE_CODES: ReadonlySet<string> = new Set(Object.values(SERVICE_CONTRACTS).flatMap((c) => [...c.nonRetryableCodes]));
