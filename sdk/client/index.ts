/** The media-jobs TypeScript client: see `MediaJobs`, and docs/api.md, "Client and command-line tool". */
export { MediaJobs, CatalogResource, ClipsResource, TranscriptionsResource, webhooks, type MediaJobsOptions } from "./media-jobs";
export { JobsResource, isTerminalStatus, type CreateOptions, type WaitOptions } from "./jobs";
export { MediaJobsError, WaitTimeoutError, WebhookVerificationError, WorkflowWaitTimeoutError, type ErrorDetail } from "./errors";
export { WorkflowsResource, type WorkflowFilters, type WorkflowPage } from "./workflows";
export { verifyWebhook, DEFAULT_TOLERANCE_SEC, type HeaderSource, type VerifyOptions } from "./webhooks";
export { clipOutputs, downloadOutputs, fetchOutput, transcriptOutputs, transcriptionJobOutputs, type OutputObject } from "./downloads";
export { OPERATIONS, fillPath, type Operation, type OperationId } from "./operations";
export { sleep, type Sleep } from "./transport";
export type * from "./types";
