import type { Env } from "../env";
import { ingestR2Event } from "./triggers";

/**
 * The consumer of R2's event notifications (a bucket's `object-create` rule sends them to the
 * `media-jobs-uploads` queue, docs/deploy.md): each message may start workflows through the upload
 * triggers of the connections on that bucket. A message R2 could never have sent is logged and
 * acknowledged; a failure to start is retried (the workflow's id makes a retry start nothing twice).
 */
export async function handleUploadEvents(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const msg of batch.messages) {
    try {
      const out = await ingestR2Event(env, msg.body);
      console.log(JSON.stringify({ level: "info", msg: "upload event", started: out.started.length, ignored: out.ignored }));
      msg.ack();
    } catch (err) {
      const malformed = err instanceof Error && err.name === "ZodError";
      console.error(JSON.stringify({ level: malformed ? "warn" : "error", msg: "upload event not handled", error: String(err) }));
      if (malformed) msg.ack();
      else msg.retry({ delaySeconds: 30 });
    }
  }
}
