import { z } from "zod";
import { SERVICE_CONTRACTS, type InputOf } from "./services/index";
import { SERVICE_TYPES, type ServiceType } from "./service-types";
import { UserMetadataSchema, WebhookUrlSchema } from "./request-fields";

/**
 * The body of `POST /v1/jobs`: one variant per public service type, its `input` taken from the
 * service's contract (`contracts/services/<name>.ts`). `webhookUrl: null` and `userMetadata: null`
 * mean "not set", as they read on the Job.
 */
export { CUSTOMER_JOB_REF_MAX, LanguageCodeSchema, OutputPrefixSchema, UserMetadataSchema, WebhookUrlSchema } from "./request-fields";
export { INDEXER_MAX_IDS } from "./services/indexer";
export { CLIP_LAYOUTS, FILL_STYLES } from "./services/clip-generation";

const common = {
  userMetadata: UserMetadataSchema.nullable().optional(),
  webhookUrl: WebhookUrlSchema.nullable().optional(),
};

const variant = (serviceType: ServiceType) =>
  z.strictObject({ serviceType: z.literal(serviceType), input: SERVICE_CONTRACTS[serviceType].input, ...common });
const variants = SERVICE_TYPES.map(variant) as unknown as [ReturnType<typeof variant>, ...Array<ReturnType<typeof variant>>];

export const CreateJobSchema = z.discriminatedUnion("serviceType", variants, {
  message: `serviceType must be one of ${SERVICE_TYPES.join(", ")}`,
});

/** The parsed body, narrowed by `serviceType`. */
export type CreateJobRequest = {
  [T in ServiceType]: {
    serviceType: T;
    input: InputOf<T>;
    userMetadata?: z.infer<typeof UserMetadataSchema> | null;
    webhookUrl?: string | null;
  };
}[ServiceType];
export type CreateJobRequestOf<T extends ServiceType> = Extract<CreateJobRequest, { serviceType: T }>;
