import { and, desc, eq, lt } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { principalOf, projectOf } from "../../auth/middleware";
import { getDb } from "../../db/client";
import { voices } from "../../db/schema";
import type { AppBindings } from "../../env";
import { notFound } from "../../errors";
import { ok } from "../../http/envelope";
import { queryWith } from "../../http/validate";
import { projectVoice, publicVoice } from "./store";

/**
 * Voices (the spec names the `vce_` prefix and leaves the routes to us; docs/api.md):
 *   POST   /v1/voices             a voice from a sample in the bucket: a `voice_creation` job (202;
 *                                  worker/routes/voices.ts, as it creates a job through the orchestrator)
 *   GET    /v1/voices             the project's voices, newest first (`?limit`, `?before`, `?origin`)
 *   GET    /v1/voices/{voiceId}
 *   DELETE /v1/voices/{voiceId}   gone at once (worker/routes/deletion.ts, as deletions are audited)
 */

export const ListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  before: z.string().optional(),
  origin: z.enum(["api", "dubbing"]).optional(),
});

export const voiceRoutes = new Hono<AppBindings>()
  .get("/", async (c) => {
    const p = principalOf(c);
    const q = queryWith(c, ListQuery);
    const rows = await getDb(c.env.DB)
      .select()
      .from(voices)
      .where(
        and(
          eq(voices.projectId, projectOf(p)),
          q.origin ? eq(voices.origin, q.origin) : undefined,
          q.before ? lt(voices.createdAt, q.before) : undefined,
        ),
      )
      .orderBy(desc(voices.createdAt))
      .limit(q.limit)
      .all();
    return ok(c, rows.map(publicVoice));
  })
  .get("/:voiceId", async (c) => {
    const p = principalOf(c);
    const id = c.req.param("voiceId");
    const v = await projectVoice(getDb(c.env.DB), projectOf(p), id);
    if (!v) throw notFound(`voice not found: ${id}`, [{ path: "voiceId", issue: `notFound:${id}` }]);
    return ok(c, publicVoice(v));
  });
