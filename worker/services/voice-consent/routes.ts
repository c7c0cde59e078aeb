import { and, desc, eq, lt } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { nowIso } from "../../../contracts/clock";
import { CONSENT_STATUSES, PhraseRequestSchema } from "../../../contracts/voice-consent";
import { principalOf, projectOf } from "../../auth/middleware";
import { getDb } from "../../db/client";
import { voiceConsents } from "../../db/schema";
import type { AppBindings } from "../../env";
import { notFound } from "../../errors";
import { ok } from "../../http/envelope";
import { jsonBody, queryWith } from "../../http/validate";
import { issuePhrase } from "./phrases";
import { projectConsent, publicConsent } from "./store";

/**
 * Voice consents (issue 25; docs/api.md "Consent for cloned voices"):
 *   POST   /v1/voice-consents            an attestation (201) or a recording to check (202, a
 *                                         `voice_consent` job; worker/routes/voice-consents.ts)
 *   POST   /v1/voice-consents/phrases    a phrase for the speaker to read (single use, 24 h)
 *   GET    /v1/voice-consents            the project's consents, newest first
 *   GET    /v1/voice-consents/{consentId}
 *   DELETE /v1/voice-consents/{consentId}  revokes: dubbings and voices created later do not clone with it
 */

export const ConsentListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  before: z.string().optional(),
  status: z.enum(CONSENT_STATUSES).optional(),
  transcriptionId: z.string().optional(),
});

const consentNotFound = (id: string) => notFound(`voice consent not found: ${id}`, [{ path: "consentId", issue: `notFound:${id}` }]);

export const voiceConsentRoutes = new Hono<AppBindings>()
  .post("/phrases", async (c) => {
    const p = principalOf(c);
    const body = await jsonBody(c, PhraseRequestSchema);
    return ok(c, await issuePhrase(getDb(c.env.DB), projectOf(p), body.speakerName ?? null), {}, 201);
  })
  .get("/", async (c) => {
    const p = principalOf(c);
    const q = queryWith(c, ConsentListQuery);
    const rows = await getDb(c.env.DB)
      .select()
      .from(voiceConsents)
      .where(
        and(
          eq(voiceConsents.projectId, projectOf(p)),
          q.status ? eq(voiceConsents.status, q.status) : undefined,
          q.before ? lt(voiceConsents.createdAt, q.before) : undefined,
        ),
      )
      .orderBy(desc(voiceConsents.createdAt))
      .limit(q.limit)
      .all();
    const wanted = q.transcriptionId;
    return ok(c, rows.filter((r) => !wanted || r.subject["transcriptionId"] === wanted).map(publicConsent));
  })
  .get("/:consentId", async (c) => {
    const p = principalOf(c);
    const id = c.req.param("consentId");
    const row = await projectConsent(getDb(c.env.DB), projectOf(p), id);
    if (!row) throw consentNotFound(id);
    return ok(c, publicConsent(row));
  })
  .delete("/:consentId", async (c) => {
    const p = principalOf(c);
    const id = c.req.param("consentId");
    const db = getDb(c.env.DB);
    const row = await projectConsent(db, projectOf(p), id);
    if (!row) throw consentNotFound(id);
    // Kept as revoked, not deleted: a dubbing that cloned with it still names it. Revoking twice changes nothing.
    if (row.status !== "revoked") {
      const now = nowIso();
      await db.update(voiceConsents).set({ status: "revoked", revokedAt: now, updatedAt: now }).where(eq(voiceConsents.id, id));
    }
    const after = await projectConsent(db, projectOf(p), id);
    return ok(c, publicConsent(after ?? row));
  });
