/**
 * SIGINT/SIGTERM for a process that stops gracefully: the first signal starts the stop, a later
 * one means "now". One Ctrl-C in a terminal can arrive two or three times within a few
 * milliseconds (from the terminal, forwarded by npm, relayed by tsx's CLI), so repeats within
 * DUPLICATE_SIGNAL_MS of the first count as that same signal and are only reported.
 */
export const DUPLICATE_SIGNAL_MS = 500;

export const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

export interface StopSignalHandlers {
  /** The first signal: stop gracefully. */
  stop(signal: StopSignal): void;
  /** A signal after the duplicate window: stop now. */
  force(signal: StopSignal): void;
  /** A repeat inside the duplicate window, ignored. */
  duplicate?(signal: StopSignal): void;
}

export function onStopSignals(
  handlers: StopSignalHandlers,
  opts: { target?: Pick<NodeJS.EventEmitter, "on">; now?: () => number } = {},
): void {
  const target = opts.target ?? process;
  const now = opts.now ?? Date.now;
  let firstAt: number | undefined;
  const onSignal = (signal: StopSignal) => {
    const at = now();
    if (firstAt === undefined) {
      firstAt = at;
      handlers.stop(signal);
    } else if (at - firstAt < DUPLICATE_SIGNAL_MS) handlers.duplicate?.(signal);
    else handlers.force(signal);
  };
  for (const signal of STOP_SIGNALS) target.on(signal, () => onSignal(signal));
}
