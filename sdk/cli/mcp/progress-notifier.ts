import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface ProgressNotifier {
  /** Reports a new state (a job or workflow moved). */
  update(message: string): void;
  stop(): void;
}

/**
 * MCP progress notifications for a long tool call, when the client asked for them (a
 * `progressToken` in the request's `_meta`); otherwise it does nothing. Besides each change it
 * repeats the last state every `heartbeatMs`: a client that resets its request timeout on progress
 * (the TypeScript SDK's `resetTimeoutOnProgress`) then keeps waiting through a long quiet stage.
 * `progress` only grows, as the protocol requires; there is no `total`, a job's length is unknown.
 */
export function progressNotifier(extra: ToolExtra, heartbeatMs: number): ProgressNotifier {
  const token = extra._meta?.progressToken;
  if (token === undefined) return { update() {}, stop() {} };
  let progress = 0;
  let last: string | null = null;
  const send = () => {
    if (last === null || extra.signal.aborted) return;
    progress += 1;
    // A notification that cannot be sent (the client went away) is not the tool's failure.
    extra
      .sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, message: last } })
      .catch(() => undefined);
  };
  const timer = setInterval(send, heartbeatMs);
  timer.unref?.();
  return {
    update(message) {
      last = message;
      send();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
