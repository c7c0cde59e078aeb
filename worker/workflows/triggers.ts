import { and, eq, sql } from "drizzle-orm";
import { randomToken } from "../../contracts/ids";
import {
  R2EventMessageSchema,
  S3EventNotificationSchema,
  triggerMatches,
  type StoredTrigger,
  type Trigger,
} from "../../contracts/triggers";
import type { Workflow, WorkflowTrigger } from "../../contracts/workflows";
import { DEFAULT_PROJECT_GRANT } from "../auth/permissions";
import type { Principal } from "../auth/principal";
import { getDb, type Db } from "../db/client";
import { projects, storageConnections, workspaces } from "../db/schema";
import type { Env } from "../env";
import { ApiError, unauthorized, validationError } from "../errors";
import { hmacSha256Hex, safeEqual, seal, SEAL_PURPOSES, unseal } from "../platform/crypto";
import { createWorkflow, derivedWorkflowId, refusedWorkflow } from "./create";
import { requirePreset } from "./presets";
import { workflowStub } from "./stubs";

/**
 * Upload triggers (issue 26): a storage connection names bucket prefixes and a preset; each object
 * created there starts the preset's workflow, once per object version (the workflow's id is derived
 * from the connection, bucket, key and version, so a repeated notification finds the same one).
 * Notifications arrive signed with the connection's event secret (the S3/MinIO event JSON, at
 * `POST /v1/storage-connections/{id}/events`), or from R2's own event notifications through a Queue.
 */

type ConnectionRow = typeof storageConnections.$inferSelect;
const eventSecretSeal = (connectionId: string) => ({ purpose: SEAL_PURPOSES.eventSecret, rowId: connectionId });

/** A preset some trigger of the project uses (the connection's id), or null. */
export async function presetInUse(db: Db, projectId: string, presetId: string): Promise<string | null> {
  const rows = await db
    .select({ id: storageConnections.id, triggers: storageConnections.triggers })
    .from(storageConnections)
    .where(eq(storageConnections.projectId, projectId))
    .all();
  return rows.find((r) => (r.triggers ?? []).some((t) => t.presetId === presetId))?.id ?? null;
}

/**
 * PUT /v1/storage-connections/{id}/triggers: the whole list, each bucket one of the connection's and
 * each preset one of the project's (a preset named by name is stored by id). The first list made
 * also makes the connection's event secret, answered once (as a key is).
 */
export async function setTriggers(
  env: Env,
  conn: ConnectionRow,
  triggers: readonly Trigger[],
): Promise<{ row: ConnectionRow; eventSecret: string | null }> {
  const db = getDb(env.DB);
  const stored: StoredTrigger[] = [];
  for (const [i, t] of triggers.entries()) {
    if (!conn.buckets.includes(t.bucket))
      throw validationError(`bucket ${t.bucket} is not one of this connection's buckets`, [
        { path: `triggers.${i}.bucket`, issue: "bucketNotInConnection" },
      ]);
    // What jobs write lands under the default output prefix, which never triggers: a trigger inside it would never fire.
    const out = `${conn.defaultOutputPrefix}/`;
    if (t.prefix.startsWith(out))
      throw validationError(
        `prefix "${t.prefix}" is inside the connection's default output prefix ${out}, where jobs write their outputs and nothing triggers; choose a prefix outside it`,
        [{ path: `triggers.${i}.prefix`, issue: "overlapsOutputPrefix" }],
      );
    const preset = await requirePreset(db, conn.projectId, t.presetId, `triggers.${i}.presetId`);
    stored.push({
      bucket: t.bucket,
      prefix: t.prefix,
      ...(t.suffixes ? { suffixes: t.suffixes } : {}),
      presetId: preset.presetId,
      enabled: t.enabled ?? true,
    });
  }
  const eventSecret = conn.eventSecretEnc ? null : `whsec_${randomToken(32)}`;
  const row = await db
    .update(storageConnections)
    .set({
      triggers: stored,
      ...(eventSecret ? { eventSecretEnc: await seal(env.ENCRYPTION_KEY, eventSecret, eventSecretSeal(conn.id)) } : {}),
      updatedAt: new Date().toISOString(),
    })
    .where(eq(storageConnections.id, conn.id))
    .returning()
    .get();
  return { row: row ?? conn, eventSecret };
}

/** POST /v1/storage-connections/{id}/event-secret: a new secret; the old one stops working at once. */
export async function rotateEventSecret(env: Env, conn: ConnectionRow): Promise<string> {
  const eventSecret = `whsec_${randomToken(32)}`;
  await getDb(env.DB)
    .update(storageConnections)
    .set({ eventSecretEnc: await seal(env.ENCRYPTION_KEY, eventSecret, eventSecretSeal(conn.id)), updatedAt: new Date().toISOString() })
    .where(eq(storageConnections.id, conn.id))
    .run();
  return eventSecret;
}

/**
 * Whether a notification carries the connection's secret: `Authorization: Bearer <secret>` (what
 * MinIO's webhook target sends as its auth token) or `X-Media-Jobs-Signature: sha256=<hex>`, the
 * HMAC-SHA256 of the body under the secret (for a relay that signs). Compared in constant time.
 */
async function signedBySecret(secret: string, body: string, headers: Headers): Promise<boolean> {
  const auth = headers.get("authorization");
  if (auth?.startsWith("Bearer ") && safeEqual(auth.slice(7).trim(), secret)) return true;
  const sig = headers.get("x-media-jobs-signature");
  if (!sig?.startsWith("sha256=")) return false;
  return safeEqual(sig.slice(7).toLowerCase(), await hmacSha256Hex(secret, body));
}

export interface IngestOutcome {
  received: number;
  started: Array<{ workflowId: string; key: string; presetId: string }>;
  /** Workflows the preset could not make for the object, kept as `failed` (`workflow_refused`). */
  refused: Array<{ workflowId: string; key: string; presetId: string; reason: string }>;
  ignored: Array<{ key: string; reason: string }>;
}

/**
 * POST /v1/storage-connections/{id}/events: an S3 event notification for this connection. An unknown
 * connection and a wrong signature answer the same 401 (nothing tells which connections exist).
 */
export async function ingestS3Events(env: Env, connectionId: string, body: string, headers: Headers): Promise<IngestOutcome> {
  const db = getDb(env.DB);
  const conn = await db.select().from(storageConnections).where(eq(storageConnections.id, connectionId)).get();
  const secret = conn?.eventSecretEnc ? await unseal(env.ENCRYPTION_KEY, conn.eventSecretEnc, eventSecretSeal(conn.id)) : null;
  if (!conn || !secret || !(await signedBySecret(secret, body, headers)))
    throw unauthorized("the event notification is not signed with this connection's event secret");
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw validationError("the event notification is not JSON", [{ path: "", issue: "invalidJson" }]);
  }
  // MinIO's test event (s3:TestEvent) and an empty body carry no records: answered, nothing started.
  const parsed = S3EventNotificationSchema.safeParse(json);
  if (!parsed.success) {
    if (json && typeof json === "object" && !("Records" in json)) return { received: 0, started: [], refused: [], ignored: [] };
    throw validationError("the event notification is not an S3 event (Records[])", [{ path: "Records", issue: "invalidEvent" }]);
  }
  const out: IngestOutcome = { received: parsed.data.Records.length, started: [], refused: [], ignored: [] };
  for (const r of parsed.data.Records) {
    const key = decodeS3Key(r.s3.object.key);
    await startForObject(env, conn, out, {
      connectionId: conn.id,
      bucket: r.s3.bucket.name,
      key,
      versionId: r.s3.object.versionId ?? null,
      eTag: r.s3.object.eTag ?? null,
      size: r.s3.object.size ?? null,
      eventName: r.eventName,
      eventTime: r.eventTime ?? null,
    });
  }
  return out;
}

/**
 * One message of R2's event notifications (a Queue this Worker consumes): every active connection
 * whose endpoint is that account's R2 and that lists the bucket.
 */
export async function ingestR2Event(env: Env, message: unknown): Promise<IngestOutcome> {
  const m = R2EventMessageSchema.parse(message);
  // Only the connections that list the bucket and have triggers are read (not every connection of the platform).
  const rows = await getDb(env.DB)
    .select()
    .from(storageConnections)
    .where(
      and(
        eq(storageConnections.status, "active"),
        sql`${storageConnections.triggers} != '[]'`,
        sql`EXISTS (SELECT 1 FROM json_each(${storageConnections.buckets}) WHERE value = ${m.bucket})`,
      ),
    )
    .all();
  const out: IngestOutcome = { received: 1, started: [], refused: [], ignored: [] };
  const r2Host = m.account ? `${m.account}.r2.cloudflarestorage.com` : null;
  for (const conn of rows) {
    if (!conn.buckets.includes(m.bucket) || (r2Host && !new URL(conn.endpoint).host.endsWith(r2Host))) continue;
    await startForObject(env, conn, out, {
      connectionId: conn.id,
      bucket: m.bucket,
      key: m.object.key,
      versionId: null,
      eTag: m.object.eTag ?? null,
      size: m.object.size ?? null,
      eventName: m.action,
      eventTime: m.eventTime ?? null,
    });
  }
  return out;
}

async function startForObject(env: Env, conn: ConnectionRow, out: IngestOutcome, t: WorkflowTrigger): Promise<void> {
  if (!/^(ObjectCreated|PutObject|CopyObject|CompleteMultipartUpload)/i.test(t.eventName.replace(/^s3:/, ""))) {
    out.ignored.push({ key: t.key, reason: `event ${t.eventName} starts nothing` });
    return;
  }
  if (conn.status !== "active") {
    out.ignored.push({ key: t.key, reason: "the connection is inactive" });
    return;
  }
  const matching = (conn.triggers ?? []).filter((tr) => triggerMatches(tr, t.bucket, t.key, conn.defaultOutputPrefix));
  if (matching.length === 0) out.ignored.push({ key: t.key, reason: "no trigger matches its bucket and key" });
  // Who the workflows are made for: read once per object, only when one is to be made.
  let principal: Principal | undefined;
  for (const tr of matching) {
    // One object version, one workflow per preset: the version is the store's id, else the ETag (same bytes, same run).
    const version = t.versionId ?? t.eTag ?? "unversioned";
    const triggerKey = `${conn.id}\n${t.bucket}\n${t.key}\n${version}\n${tr.presetId}`;
    const workflowId = await derivedWorkflowId(triggerKey);
    // Notified again (a retry, the same bytes uploaded again): the workflow it started is the answer.
    const existing = await workflowStub(env, workflowId).get();
    if (existing) {
      out.started.push({ workflowId, key: t.key, presetId: tr.presetId });
      continue;
    }
    principal ??= await triggerPrincipal(env, conn);
    try {
      const w: Workflow = await createWorkflow(env, principal, { presetId: tr.presetId }, { trigger: t, workflowId, triggerKey });
      out.started.push({ workflowId: w.workflowId, key: t.key, presetId: tr.presetId });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // A workflow the preset cannot make for this object (a quota, a bad template) is kept as one that failed at once.
      const w = await refusedWorkflow(env, principal, tr.presetId, { trigger: t, workflowId, triggerKey }, err);
      out.refused.push({ workflowId: w.workflowId, key: t.key, presetId: tr.presetId, reason: `${err.code}: ${err.message}` });
    }
  }
}

/** Who a triggered workflow's jobs are made for: the project itself, named after the connection. */
async function triggerPrincipal(env: Env, conn: ConnectionRow): Promise<Principal> {
  const row = await getDb(env.DB)
    .select({ workspaceId: projects.workspaceId, plan: workspaces.plan })
    .from(projects)
    .innerJoin(workspaces, eq(workspaces.id, projects.workspaceId))
    .where(and(eq(projects.id, conn.projectId)))
    .get();
  if (!row) throw new ApiError("notFound", `project not found: ${conn.projectId}`);
  return {
    keyKind: "project",
    keyId: `trigger:${conn.id}`,
    keyName: `upload trigger of ${conn.name}`,
    workspaceId: row.workspaceId,
    plan: row.plan,
    projectId: conn.projectId,
    permissions: [...DEFAULT_PROJECT_GRANT],
    userId: null,
    userHandle: null,
  };
}

/** An S3 notification's key is URL-encoded, with `+` for a space (AWS, MinIO). */
export function decodeS3Key(key: string): string {
  try {
    return decodeURIComponent(key.replace(/\+/g, " "));
  } catch {
    return key;
  }
}
