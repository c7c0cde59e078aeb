/** Billing period key: calendar month in UTC (`2026-11`). */
export function billingPeriod(at = new Date()): string {
  return at.toISOString().slice(0, 7);
}

/** First instant of the next billing period, when monthly quotas reset. */
export function periodResetsAt(at = new Date()): string {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)).toISOString();
}
