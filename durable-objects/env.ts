import type { DispatchMessage, WebhookMessage } from "../queues/messages";

/** The bindings a JobDO uses: its D1 mirror and runner lane, and the two queues it sends to. */
export interface JobEnv {
  DB: D1Database;
  DISPATCH_QUEUE: Queue<DispatchMessage>;
  WEBHOOK_QUEUE: Queue<WebhookMessage>;
}
