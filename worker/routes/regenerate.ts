import { Hono } from "hono";
import { RegenerateRequestSchema } from "../../contracts/regenerate";
import { principalOf, projectOf } from "../auth/middleware";
import { getDb } from "../db/client";
import type { AppBindings } from "../env";
import { validationError } from "../errors";
import { ok } from "../http/envelope";
import { jsonBody } from "../http/validate";
import { createRegenerationJobs, planRegeneration } from "../jobs/regenerate";
import { ownedTranscript } from "../transcripts/store";

/**
 * `POST /v1/transcriptions/{transcriptionId}/regenerate` (202): the transcript's outputs asked for,
 * made again from its current revision by ordinary jobs (worker/jobs/regenerate.ts). It lives with the
 * platform routes because it goes through the orchestrator (`createJob`), which sits above every service.
 */
export const regenerateRoutes = new Hono<AppBindings>().post("/:transcriptionId/regenerate", async (c) => {
  const p = principalOf(c);
  const body = await jsonBody(c, RegenerateRequestSchema);
  const db = getDb(c.env.DB);
  const t = await ownedTranscript(db, projectOf(p), c.req.param("transcriptionId"));
  if (t.status !== "completed")
    throw validationError(`transcription ${t.id} is ${t.status}; only a completed transcript has outputs to regenerate`, [
      { path: "transcriptionId", issue: "jobNotCompleted" },
    ]);
  const plan = await planRegeneration(c.env, db, t, body);
  const results = await createRegenerationJobs(c.env, p, plan, c.get("timing"));
  const made = results.flatMap((r) => ("job" in r ? [r] : []));
  const refused = results.flatMap((r) => ("error" in r ? [r] : []));
  // Nothing made: the first refusal is the answer, with its own status (a plan limit's 429, a check's 422).
  const [first] = refused;
  if (made.length === 0 && first) throw first.error;
  return ok(
    c,
    {
      transcriptionId: t.id,
      revision: t.revision,
      jobs: made,
      refused: refused.map(({ error, ...what }) => ({
        ...what,
        error: { code: error.code, message: error.message, details: error.details },
      })),
    },
    {},
    202,
  );
});
