import { Hono } from "hono";
import { principalOf, projectOf } from "../auth/middleware";
import { getDb } from "../db/client";
import type { AppBindings } from "../env";
import { ok } from "../http/envelope";
import { readJson } from "../http/validate";
import { createJob } from "../jobs/create";
import { projectVoice, publicVoice, storedVoiceCreation } from "../services/voice-creation/store";

/**
 * `POST /v1/voices`: a voice from a sample in the bucket, made by a `voice_creation` job (202). It
 * lives with the platform routes, not in the voice service's record routes, because it goes through
 * the orchestrator (`createJob`), which sits above every service.
 */
export const voiceCreateRoutes = new Hono<AppBindings>().post("/", async (c) => {
  const p = principalOf(c);
  const { value } = await readJson(c);
  const job = await createJob(c.env, p, { serviceType: "voice_creation", input: value }, c.get("timing"));
  const voice = await projectVoice(getDb(c.env.DB), projectOf(p), storedVoiceCreation(job).voiceId);
  return ok(c, { ...(voice ? publicVoice(voice) : {}), job }, {}, 202);
});
