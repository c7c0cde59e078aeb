/**
 * Structured logging: one JSON object per line on stdout, e.g.
 * `{"ts":"…","level":"info","event":"lease","runnerId":"…","taskId":"…"}`.
 */
export type LogLevel = "debug" | "info" | "warn" | "error";
export type Logger = (level: LogLevel, event: string, fields?: Record<string, unknown>) => void;

export function jsonLogger(base: Record<string, unknown> = {}, write: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  return (level, event, fields = {}) => {
    write(`${JSON.stringify({ ts: new Date().toISOString(), level, event, ...base, ...fields })}\n`);
  };
}

export const silentLogger: Logger = () => undefined;
