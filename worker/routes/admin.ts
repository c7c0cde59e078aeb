import { eq } from "drizzle-orm";
import { forgetKeys } from "../auth/key-cache";
import { Hono } from "hono";
import { createKey, createWorkspace } from "../accounts/service";
import { createUser, publicUser } from "../auth/users";
import { getDb, type Db } from "../db/client";
import { workspaces } from "../db/schema";
import { requireSecret } from "../auth/middleware";
import { createRunnerToken, CreateRunnerTokenSchema, listRunnerTokens, revokeRunnerToken } from "../auth/runner-tokens";
import type { AppBindings } from "../env";
import { notFound } from "../errors";
import { ok } from "../http/envelope";
import { jsonBody } from "../http/validate";
import { loadSettings, updateSettings } from "../platform/settings";
import { migrateDataPlaneBatch } from "../maintenance/data-plane-migration";
import { MigrationRequestSchema } from "../maintenance/migration-batch";
import {
  CreateUserSchema,
  CreateWorkspaceKeySchema,
  CreateWorkspaceSchema,
  SettingsPatchSchema,
  UpdateWorkspaceSchema,
} from "./admin-schemas";

/**
 * Operator routes (the spec's "dashboard only" actions): workspaces, workspace keys, console users,
 * runner tokens and platform settings. Guarded by the ADMIN_SECRET Worker secret, never by a customer key.
 */
async function workspaceOf(db: Db, workspaceId: string) {
  const ws = await db.select().from(workspaces).where(eq(workspaces.id, workspaceId)).get();
  if (!ws) throw notFound(`workspace not found: ${workspaceId}`);
  return ws;
}

export const adminRoutes = new Hono<AppBindings>()
  .use(requireSecret("ADMIN_SECRET", "admin routes"))
  .post("/workspaces", async (c) => {
    const body = await jsonBody(c, CreateWorkspaceSchema);
    const { workspace, created } = await createWorkspace(getDb(c.env.DB), body.name, body.plan);
    return ok(
      c,
      { workspaceId: workspace.id, name: workspace.name, plan: workspace.plan, createdAt: workspace.createdAt },
      { created },
      created ? 201 : 200,
    );
  })
  .patch("/workspaces/:workspaceId", async (c) => {
    const body = await jsonBody(c, UpdateWorkspaceSchema);
    const rows = await getDb(c.env.DB)
      .update(workspaces)
      .set({ plan: body.plan })
      .where(eq(workspaces.id, c.req.param("workspaceId")))
      .returning();
    const ws = rows[0];
    if (!ws) throw notFound(`workspace not found: ${c.req.param("workspaceId")}`);
    // The plan travels with each cached key (worker/auth/key-cache.ts).
    forgetKeys();
    return ok(c, { workspaceId: ws.id, name: ws.name, plan: ws.plan, createdAt: ws.createdAt });
  })
  .post("/workspaces/:workspaceId/keys", async (c) => {
    const body = await jsonBody(c, CreateWorkspaceKeySchema);
    const db = getDb(c.env.DB);
    const ws = await workspaceOf(db, c.req.param("workspaceId"));
    const key = await createKey(db, {
      kind: "workspace",
      workspaceId: ws.id,
      projectId: null,
      name: body.name,
      ...(body.permissions ? { permissions: body.permissions } : {}),
    });
    // The answer carries the key's secret: no cache may keep it.
    c.header("Cache-Control", "no-store");
    return ok(c, key, {}, 201);
  })
  .post("/workspaces/:workspaceId/users", async (c) => {
    const body = await jsonBody(c, CreateUserSchema);
    const db = getDb(c.env.DB);
    const ws = await workspaceOf(db, c.req.param("workspaceId"));
    const user = await createUser(db, {
      workspaceId: ws.id,
      email: body.email,
      name: body.name ?? body.email.split("@")[0] ?? body.email,
      role: body.role,
      password: body.password,
    });
    return ok(c, publicUser(user), {}, 201);
  })
  .post("/runner-tokens", async (c) => {
    const body = await jsonBody(c, CreateRunnerTokenSchema);
    const token = await createRunnerToken(getDb(c.env.DB), body);
    // The secret is in this answer only: no cache may keep it.
    c.header("Cache-Control", "no-store");
    return ok(c, token, { note: "the secret is shown once; give it to the runner as RUNNER_TOKEN" }, 201);
  })
  .get("/runner-tokens", async (c) => ok(c, await listRunnerTokens(getDb(c.env.DB))))
  .post("/runner-tokens/:runnerTokenId/revoke", async (c) => ok(c, await revokeRunnerToken(getDb(c.env.DB), c.req.param("runnerTokenId"))))
  .get("/settings", async (c) => ok(c, await loadSettings(getDb(c.env.DB))))
  .patch("/settings", async (c) => {
    const body = await jsonBody(c, SettingsPatchSchema);
    return ok(c, await updateSettings(getDb(c.env.DB), body));
  })
  .post("/maintenance/data-plane-migration", async (c) => {
    const body = await jsonBody(c, MigrationRequestSchema);
    return ok(c, await migrateDataPlaneBatch(c.env, body.limit));
  });
