import type { AnyWebhookMessage, DispatchMessage } from "./messages";
import type { LaneSignal } from "./lane-signal";

/** The bindings a JobDO uses: its D1 mirror and runner lane, the lane's signal, and the two queues it sends to. */
export interface JobEnv {
  DB: D1Database;
  LANE: DurableObjectNamespace<LaneSignal>;
  DISPATCH_QUEUE: Queue<DispatchMessage>;
  WEBHOOK_QUEUE: Queue<AnyWebhookMessage>;
}
