import { and, desc, eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import { TriggersSchema } from "../../contracts/triggers";
import { ingestS3Events, rotateEventSecret, setTriggers } from "../workflows/triggers";
import { z } from "zod";
import { newId } from "../../contracts/ids";
import { S3Client, S3Error } from "../../contracts/s3-client";
import { principalOf, projectOf } from "../auth/middleware";
import { getDb } from "../db/client";
import { storageConnections } from "../db/schema";
import type { AppBindings } from "../env";
import { notFound, validationError } from "../errors";
import { ok } from "../http/envelope";
import { jsonBody, parseWith, readJson } from "../http/validate";
import { seal } from "../platform/crypto";
import { refusalDetail, storageEndpointRefusal } from "../platform/outbound-url";
import { connectionLocation, connectionSecretSeal, forgetConnections, publicConnection } from "../storage/connections";
import { nowIso } from "../../contracts/clock";

export const CreateConnectionSchema = z.strictObject({
  name: z.string().min(1).max(120),
  endpoint: z.url({ protocol: /^https?$/, message: "endpoint must be an http(s) URL" }),
  region: z.string().min(1).max(64).default("us-east-1"),
  forcePathStyle: z.boolean().default(true),
  buckets: z
    .array(
      z
        .string()
        .min(3)
        .max(63)
        .regex(/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/, { message: "bucket names are 3-63 lowercase letters, digits, dots and hyphens" }),
    )
    .min(1)
    .max(100),
  accessKeyId: z.string().min(1).max(256),
  secretAccessKey: z.string().min(1).max(512),
  defaultOutputPrefix: z
    .string()
    .min(1)
    .max(256)
    .refine((v) => !v.startsWith("/") && !v.split("/").includes(".."), { message: "defaultOutputPrefix must be relative, without `..`" })
    .default("svc-media-results"),
});

export const storageConnectionRoutes = new Hono<AppBindings>()
  .post("/", async (c) => {
    const p = principalOf(c);
    const body = await jsonBody(c, CreateConnectionSchema);
    // Credentials travel to this endpoint, and the service connects to it: https to a public host only.
    const refused = storageEndpointRefusal(body.endpoint, c.env.ENVIRONMENT);
    if (refused) throw validationError(refused.message, refusalDetail("endpoint", refused));
    const now = nowIso();
    const s3 = new S3Client(
      {
        endpoint: body.endpoint,
        region: body.region,
        forcePathStyle: body.forcePathStyle,
        accessKeyId: body.accessKeyId,
        secretAccessKey: body.secretAccessKey,
      },
      10_000,
    );
    // Credentials are checked against the store now, so a job never fails later on a typo.
    for (const [i, bucket] of body.buckets.entries()) {
      try {
        await s3.checkBucket(bucket);
      } catch (err) {
        // An S3 answer (AccessDenied, NoSuchBucket…) is named; a refused, timed-out or non-S3 answer reads
        // the same whatever happened, so this cannot be used to learn which hosts exist or answer.
        const code = err instanceof S3Error && err.s3Code ? err.s3Code : null;
        throw validationError(
          code
            ? `credentials could not access bucket ${bucket}: the store answered ${code}`
            : `could not verify bucket ${bucket} at the endpoint: check the endpoint, region, credentials and bucket name`,
          [{ path: `buckets.${i}`, issue: "credentialsRejected" }],
        );
      }
    }
    const id = newId("storageConnection");
    const row = {
      id,
      projectId: projectOf(p),
      name: body.name,
      endpoint: body.endpoint,
      region: body.region,
      forcePathStyle: body.forcePathStyle,
      buckets: body.buckets,
      accessKeyId: body.accessKeyId,
      secretAccessKeyEnc: await seal(c.env.ENCRYPTION_KEY, body.secretAccessKey, connectionSecretSeal(id)),
      defaultOutputPrefix: body.defaultOutputPrefix.replace(/\/$/, ""),
      status: "active" as const,
      triggers: [],
      eventSecretEnc: null,
      createdAt: now,
      updatedAt: now,
    };
    await getDb(c.env.DB).insert(storageConnections).values(row);
    return ok(c, publicConnection(row), {}, 201);
  })
  .get("/", async (c) => {
    const p = principalOf(c);
    const rows = await getDb(c.env.DB)
      .select()
      .from(storageConnections)
      .where(eq(storageConnections.projectId, projectOf(p)))
      .orderBy(desc(storageConnections.createdAt))
      .all();
    return ok(c, rows.map(publicConnection));
  })
  .get("/:connectionId", async (c) => {
    const p = principalOf(c);
    const id = c.req.param("connectionId");
    const row = await getDb(c.env.DB)
      .select()
      .from(storageConnections)
      .where(and(eq(storageConnections.id, id), eq(storageConnections.projectId, projectOf(p))))
      .get();
    if (!row) throw notFound(`storage connection not found: ${id}`, [{ path: "connectionId", issue: `notFound:${id}` }]);
    return ok(c, publicConnection(row));
  })
  .post("/:connectionId/deactivate", async (c) => {
    const p = principalOf(c);
    const id = c.req.param("connectionId");
    const db = getDb(c.env.DB);
    const rows = await db
      .update(storageConnections)
      .set({ status: "inactive", updatedAt: nowIso() })
      .where(and(eq(storageConnections.id, id), eq(storageConnections.projectId, projectOf(p))))
      .returning();
    forgetConnections();
    const row = rows[0];
    if (!row) throw notFound(`storage connection not found: ${id}`, [{ path: "connectionId", issue: `notFound:${id}` }]);
    return ok(c, publicConnection(row));
  });

async function projectConnection(c: Context<AppBindings>) {
  const id = c.req.param("connectionId") ?? "";
  const row = await getDb(c.env.DB)
    .select()
    .from(storageConnections)
    .where(and(eq(storageConnections.id, id), eq(storageConnections.projectId, projectOf(principalOf(c)))))
    .get();
  if (!row) throw notFound(`storage connection not found: ${id}`, [{ path: "connectionId", issue: `notFound:${id}` }]);
  return row;
}

/**
 * Upload triggers (issue 26, worker/workflows/triggers.ts): the list, the event secret, and the
 * endpoint a store's event notifications reach (no key: the connection's event secret signs them).
 */
export const storageTriggerRoutes = new Hono<AppBindings>()
  .put("/:connectionId/triggers", async (c) => {
    const conn = await projectConnection(c);
    const body = parseWith(z.strictObject({ triggers: TriggersSchema }), (await readJson(c)).value);
    const { row, eventSecret } = await setTriggers(c.env, conn, body.triggers);
    return ok(c, { ...publicConnection(row), ...(eventSecret ? { eventSecret } : {}) });
  })
  .post("/:connectionId/event-secret", async (c) => {
    const conn = await projectConnection(c);
    return ok(c, { ...publicConnection(conn), eventSecret: await rotateEventSecret(c.env, conn) });
  })
  .post("/:connectionId/events", async (c) => {
    const body = await c.req.text();
    return ok(c, await ingestS3Events(c.env, c.req.param("connectionId"), body, c.req.raw.headers), {}, 202);
  });

export { connectionLocation };
