import type { ServiceName } from "../../../contracts/services/types";
import type { OperationDoc } from "../operation";
import { clipGenerationOperations } from "./clip-generation";
import { dubbingOperations } from "./dubbing";
import { indexerOperations } from "./indexer";
import { metadataOperations } from "./metadata";
import { summarizationOperations } from "./summarization";
import { thumbnailOperations } from "./thumbnail";
import { transcriptionOperations } from "./transcription";
import { translationOperations } from "./translation";
import { voiceConsentOperations } from "./voice-consent";
import { voiceCreationOperations } from "./voice-creation";

/**
 * Each service's record routes (WORKER_SERVICES[name].routes), described one file per service.
 * They live here rather than in worker/services/<name>/ so the Worker's service modules do not
 * carry documentation types; the coverage test ties the two together.
 */
export const SERVICE_OPERATIONS = {
  transcription: transcriptionOperations,
  clip_generation: clipGenerationOperations,
  thumbnail: thumbnailOperations,
  metadata: metadataOperations,
  indexer: indexerOperations,
  summarization: summarizationOperations,
  translation: translationOperations,
  dubbing: dubbingOperations,
  voice_creation: voiceCreationOperations,
  voice_consent: voiceConsentOperations,
} satisfies Partial<Record<ServiceName, OperationDoc[]>>;
