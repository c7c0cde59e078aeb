import { and, desc, eq, isNull } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { ProjectBrandingSchema } from "../../contracts/branding";
import { WebhookUrlSchema } from "../../contracts/job-requests";
import { newId } from "../../contracts/ids";
import {
  createKey,
  createProject,
  findProject,
  listProjectKeys,
  revokeProjectKey,
  rotateWebhookSecret,
  publicProject,
} from "../accounts/service";
import { principalOf } from "../auth/middleware";
import { DEFAULT_PROJECT_GRANT, ProjectGrantSchema } from "../auth/permissions";
import { getDb } from "../db/client";
import { projects, workspaces } from "../db/schema";
import type { AppBindings } from "../env";
import { conflict, notFound } from "../errors";
import { ok } from "../http/envelope";
import { jsonBody } from "../http/validate";
import { usageFor } from "../accounts/credits";
import { METERS } from "../services/index";
import { checkWebhookUrl } from "../jobs/create";
import { loadSettings } from "../platform/settings";
import { checkLogo } from "../accounts/branding";
import { patchedDataPolicy } from "../accounts/data-policy";
import { DataPolicyPatchSchema } from "../../contracts/data-policy";

export const CreateProjectSchema = z.strictObject({ name: z.string().min(1).max(120), webhookUrl: WebhookUrlSchema.nullable().optional() });
export const UpdateProjectSchema = z
  .strictObject({
    webhookUrl: WebhookUrlSchema.nullable().optional(),
    branding: ProjectBrandingSchema.nullable().optional(),
    dataPolicy: DataPolicyPatchSchema.optional(),
  })
  .refine((b) => b.webhookUrl !== undefined || b.branding !== undefined || b.dataPolicy !== undefined, {
    message: "send webhookUrl, branding, dataPolicy or any of them",
    params: { issue: "empty" },
  });
export const CreateKeySchema = z.strictObject({
  name: z.string().min(1).max(120),
  permissions: z.array(ProjectGrantSchema).min(1).optional(),
});
export const ConsoleSessionSchema = z.strictObject({
  projectId: z.string().min(1),
  userHandle: z.string().min(1).max(120),
  ttlMinutes: z
    .number()
    .int()
    .min(5)
    .max(24 * 60)
    .default(12 * 60),
});

const CONSOLE_PERMISSIONS = [...DEFAULT_PROJECT_GRANT];
/** On every answer that carries a secret: no cache may keep it. */
const NO_STORE = "no-store";

export const workspaceRoutes = new Hono<AppBindings>().get("/", async (c) => {
  const p = principalOf(c);
  const ws = await getDb(c.env.DB).select().from(workspaces).where(eq(workspaces.id, p.workspaceId)).get();
  if (!ws) throw notFound("workspace not found");
  return ok(c, {
    workspaceId: ws.id,
    name: ws.name,
    plan: ws.plan,
    createdAt: ws.createdAt,
    usage: await usageFor(c.env.DB, await loadSettings(getDb(c.env.DB)), ws.id, ws.plan, METERS),
  });
});

async function ownedProject(c: Parameters<typeof principalOf>[0], workspaceId: string) {
  const id = c.req.param("projectId") ?? "";
  const project = await findProject(getDb(c.env.DB), workspaceId, id);
  if (!project) throw notFound(`project not found: ${id}`, [{ path: "projectId", issue: `notFound:${id}` }]);
  return project;
}

export const projectRoutes = new Hono<AppBindings>()
  .get("/", async (c) => {
    const p = principalOf(c);
    const rows = await getDb(c.env.DB)
      .select()
      .from(projects)
      .where(and(eq(projects.workspaceId, p.workspaceId), isNull(projects.deletionStartedAt)))
      .orderBy(desc(projects.createdAt))
      .all();
    return ok(
      c,
      rows.map((r) => publicProject(r)),
    );
  })
  .post("/", async (c) => {
    const p = principalOf(c);
    const body = await jsonBody(c, CreateProjectSchema);
    const db = getDb(c.env.DB);
    checkWebhookUrl(body.webhookUrl, await loadSettings(db), c.env.ENVIRONMENT);
    const dup = await db
      .select({ id: projects.id })
      .from(projects)
      .where(and(eq(projects.workspaceId, p.workspaceId), eq(projects.name, body.name)))
      .get();
    if (dup) throw conflict(`a project named ${body.name} already exists: ${dup.id}`, [{ path: "name", issue: "duplicate" }]);
    c.header("Cache-Control", NO_STORE);
    return ok(c, await createProject(db, c.env.ENCRYPTION_KEY, p.workspaceId, body.name, body.webhookUrl ?? null), {}, 201);
  })
  .get("/:projectId", async (c) => {
    const p = principalOf(c);
    // The signing secret is shown once (at creation and on rotation), never on a read.
    return ok(c, publicProject(await ownedProject(c, p.workspaceId)));
  })
  .post("/:projectId/webhook-secret", async (c) => {
    const p = principalOf(c);
    const project = await ownedProject(c, p.workspaceId);
    c.header("Cache-Control", NO_STORE);
    return ok(
      c,
      await rotateWebhookSecret(getDb(c.env.DB), c.env.ENCRYPTION_KEY, project),
      { note: "the secret is shown once; store it now. The previous secret signs deliveries beside it until previousSecretValidUntil" },
      201,
    );
  })
  .patch("/:projectId", async (c) => {
    const p = principalOf(c);
    const project = await ownedProject(c, p.workspaceId);
    const body = await jsonBody(c, UpdateProjectSchema);
    const db = getDb(c.env.DB);
    if (body.webhookUrl !== undefined) checkWebhookUrl(body.webhookUrl, await loadSettings(db), c.env.ENVIRONMENT);
    if (body.branding?.logo) await checkLogo(db, c.env, project.id, body.branding.logo);
    const rows = await db
      .update(projects)
      .set({
        ...(body.webhookUrl !== undefined ? { webhookUrl: body.webhookUrl } : {}),
        ...(body.branding !== undefined ? { branding: body.branding } : {}),
        ...(body.dataPolicy !== undefined ? { dataPolicy: patchedDataPolicy(project.dataPolicy, body.dataPolicy) } : {}),
      })
      .where(eq(projects.id, project.id))
      .returning();
    return ok(c, publicProject(rows[0] ?? project));
  })
  .post("/:projectId/api-keys", async (c) => {
    const p = principalOf(c);
    const project = await ownedProject(c, p.workspaceId);
    const body = await jsonBody(c, CreateKeySchema);
    const key = await createKey(getDb(c.env.DB), {
      kind: "project",
      workspaceId: p.workspaceId,
      projectId: project.id,
      name: body.name,
      ...(body.permissions ? { permissions: body.permissions } : {}),
    });
    c.header("Cache-Control", NO_STORE);
    return ok(c, key, { note: "the secret is shown once; store it now" }, 201);
  })
  .get("/:projectId/api-keys", async (c) => {
    const p = principalOf(c);
    const project = await ownedProject(c, p.workspaceId);
    return ok(c, await listProjectKeys(getDb(c.env.DB), project.id));
  })
  .post("/:projectId/api-keys/:keyId/revoke", async (c) => {
    const p = principalOf(c);
    const project = await ownedProject(c, p.workspaceId);
    const keyId = c.req.param("keyId");
    const key = await revokeProjectKey(getDb(c.env.DB), project.id, keyId, ["project", "console"]);
    if (!key) throw notFound(`API key not found: ${keyId}`, [{ path: "keyId", issue: `notFound:${keyId}` }]);
    return ok(c, key);
  });

/** Console sessions: how the dashboard acts for a signed-in user (the spec leaves the mechanism open). */
export const consoleRoutes = new Hono<AppBindings>().post("/sessions", async (c) => {
  const p = principalOf(c);
  const body = await jsonBody(c, ConsoleSessionSchema);
  const project = await findProject(getDb(c.env.DB), p.workspaceId, body.projectId);
  if (!project) throw notFound(`project not found: ${body.projectId}`, [{ path: "projectId", issue: `notFound:${body.projectId}` }]);
  const expiresAt = new Date(Date.now() + body.ttlMinutes * 60_000).toISOString();
  const userId = newId("user");
  // The handle is free text: the label says which workspace key minted the session, so it cannot pass as a person.
  const userHandle = `${body.userHandle} (workspace key ${p.keyName})`;
  const key = await createKey(getDb(c.env.DB), {
    kind: "console",
    workspaceId: p.workspaceId,
    projectId: project.id,
    name: `Console (${userHandle})`,
    permissions: CONSOLE_PERMISSIONS,
    userId,
    userHandle,
    expiresAt,
  });
  c.header("Cache-Control", NO_STORE);
  return ok(c, { sessionId: key.apiKeyId, userId, userHandle, projectId: project.id, expiresAt, secret: key.secret }, {}, 201);
});
