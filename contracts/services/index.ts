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
import { voiceConsentService } from "./voice-consent";
import { voiceCreationService } from "./voice-creation";
import { transcriptFilesService } from "./transcript-files";
import type { ServiceContract, ServiceName } from "./types";
import type { z } from "zod";

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
  transcript_files: transcriptFilesService,
  voice_consent: voiceConsentService,
  test: testService,
} satisfies Record<ServiceName, ServiceContract>;

export type ServiceContracts = typeof SERVICE_CONTRACTS;
export type InputOf<T extends ServiceType> = ServiceContracts[T]["input"]["_output"];

/** The input a job of this service stores, as a step reads it (after the contract's schema parsed it). */
export type StoredOf<T extends ServiceName> = z.output<ServiceContracts[T]["stored"]>;
/** What the Worker's `resolve()` hands the job to store (before defaults the schema fills). */
export type StoredInputOf<T extends ServiceName> = z.input<ServiceContracts[T]["stored"]>;

type StepsOf<T extends ServiceName> = ServiceContracts[T]["steps"][number];
/** Earlier steps' outputs by step name, for the steps of this service that keep one. */
export type OutputsOf<T extends ServiceName> = {
  [S in StepsOf<T> as S extends { output: z.ZodType } ? S["name"] : never]?: S extends { output: z.ZodType<infer O> } ? O : never;
};

/** Every failure code that must not be retried, across services. */
export const NON_RETRYABLE_CODES: ReadonlySet<string> = new Set(Object.values(SERVICE_CONTRACTS).flatMap((c) => [...c.nonRetryableCodes]));
