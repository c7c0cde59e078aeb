/**
 * The one failure type of a step, on either executor (runner or Worker): `code` becomes the job's
 * `error.code` when the attempt fails for good; `retryable: false` fails the job at once.
 */
export class StepFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = "StepFailure";
  }
}

/** Longest error message sent to the job (`error.message`, `lastError.message`). */
export const MAX_ERROR_MESSAGE = 1000;

export function isStepFailure(err: unknown): err is StepFailure {
  return (
    err instanceof StepFailure ||
    (err instanceof Error &&
      err.name === "StepFailure" &&
      typeof (err as Partial<StepFailure>).code === "string" &&
      typeof (err as Partial<StepFailure>).retryable === "boolean")
  );
}

const truncate = (s: string): string => (s.length > MAX_ERROR_MESSAGE ? `${s.slice(0, MAX_ERROR_MESSAGE - 1)}…` : s);

/** Any thrown value as the failure a step reports; an unknown error is `processing_failed`, retryable. */
export function toStepError(err: unknown): { code: string; message: string; retryable: boolean } {
  if (isStepFailure(err)) return { code: err.code, message: truncate(err.message), retryable: err.retryable };
  const message = err instanceof Error ? err.message || err.name : String(err);
  return { code: "processing_failed", message: truncate(message || "processing failed"), retryable: true };
}
