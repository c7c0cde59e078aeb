/** The one way the Worker, the JobDO and the consumers read the time as it is stored (ISO 8601, UTC). */
export const nowIso = (): string => new Date().toISOString();
