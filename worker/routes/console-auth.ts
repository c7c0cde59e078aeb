import { and, asc, eq, isNull } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { findProject, publicProject } from "../accounts/service";
import { principalOf } from "../auth/middleware";
import type { Principal } from "../auth/principal";
import {
  checkSameOrigin,
  clearSessionCookie,
  csrfTokenFor,
  presentedSecret,
  SESSION_ABSOLUTE_MS,
  setSessionCookie,
  startSession,
} from "../auth/session";
import { isTrustedDevice, rememberDevice } from "../console/device";
import {
  acceptInvitation,
  changePassword,
  checkCredentials,
  createInvitation,
  disableUser,
  EmailSchema,
  findUser,
  listUsers,
  publicUser,
  RoleSchema,
  type User,
} from "../auth/users";
import { getDb, type Db } from "../db/client";
import { apiKeys, projects, workspaces } from "../db/schema";
import type { AppBindings } from "../env";
import { conflict, forbidden, notFound, unauthorized } from "../errors";
import { ok } from "../http/envelope";
import { jsonBody } from "../http/validate";
import { clientAddressKey } from "../platform/client-address";
import { PASSWORD_MAX_LENGTH, PasswordSchema } from "../platform/password";
import { nowIso } from "../../contracts/clock";

/**
 * Console sign-in for people (issue 10): email and password → an HttpOnly session cookie plus a CSRF
 * token; the session, its project, sign-out; workspace admins invite, list and disable users.
 * `consolePublicRoutes` is mounted before authentication, `consoleUserRoutes` after it.
 */

export const SignInSchema = z.strictObject({
  email: EmailSchema,
  // Not the password rules: a wrong password of any length is a 401, only absurd lengths are refused early.
  password: z
    .string()
    .min(1)
    .max(PASSWORD_MAX_LENGTH * 4),
  projectId: z.string().min(1).optional(),
});
export const AcceptSchema = z.strictObject({
  token: z.string().min(1).max(200),
  name: z.string().trim().min(1).max(120),
  password: PasswordSchema,
});
export const ChangePasswordSchema = z.strictObject({
  currentPassword: z
    .string()
    .min(1)
    .max(PASSWORD_MAX_LENGTH * 4),
  newPassword: PasswordSchema,
});
export const SwitchProjectSchema = z.strictObject({ projectId: z.string().min(1) });
export const InviteSchema = z.strictObject({ email: EmailSchema, role: RoleSchema.default("member") });

type Ctx = Context<AppBindings>;

/**
 * These answers carry a session's cookie, its CSRF token or an invitation's token: no cache (the
 * browser's or a proxy's) may keep them. Set after the handler, so an error answer has it too.
 */
const noStore: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set("Cache-Control", "no-store");
};

/** What the sign-in throttle counts an attempt against: the client's address and whether this browser has signed in to the account before. */
async function attemptOrigin(c: Ctx, email: string) {
  return {
    address: clientAddressKey(c.req.header("cf-connecting-ip")),
    trustedDevice: await isTrustedDevice(c, c.env.ENCRYPTION_KEY, email),
  };
}

async function workspaceOf(db: Db, workspaceId: string) {
  const ws = await db.select().from(workspaces).where(eq(workspaces.id, workspaceId)).get();
  if (!ws) throw notFound(`workspace not found: ${workspaceId}`);
  return { workspaceId: ws.id, name: ws.name, plan: ws.plan };
}

/** The project a new session acts for: the one asked for (in the user's workspace), else the workspace's oldest. */
async function sessionProject(db: Db, workspaceId: string, projectId: string | undefined) {
  if (projectId) {
    const p = await findProject(db, workspaceId, projectId);
    if (!p) throw notFound(`project not found: ${projectId}`, [{ path: "projectId", issue: `notFound:${projectId}` }]);
    return p;
  }
  return (
    (await db
      .select()
      .from(projects)
      .where(and(eq(projects.workspaceId, workspaceId), isNull(projects.deletionStartedAt)))
      .orderBy(asc(projects.createdAt))
      .get()) ?? null
  );
}

async function sessionView(
  db: Db,
  user: User,
  projectId: string | null,
  session: { sessionId: string; csrfToken: string; expiresAt: string | null; idleExpiresAt: string | null },
) {
  const project = projectId ? await findProject(db, user.workspaceId, projectId) : null;
  return {
    sessionId: session.sessionId,
    user: publicUser(user),
    workspace: await workspaceOf(db, user.workspaceId),
    project: project ? publicProject(project) : null,
    csrfToken: session.csrfToken,
    expiresAt: session.expiresAt,
    idleExpiresAt: session.idleExpiresAt,
  };
}

/** A console session of a real user (not a dashboard pseudo-key from POST /v1/console/sessions). */
async function requireConsoleUser(c: Ctx): Promise<{ p: Principal; user: User }> {
  const p = principalOf(c);
  const user = p.userId ? await findUser(getDb(c.env.DB), p.workspaceId, p.userId) : undefined;
  if (!user) throw forbidden("this route needs a console user signed in with email and password");
  if (user.disabledAt) throw unauthorized("this account has been disabled; ask an admin of your workspace");
  return { p, user };
}

async function requireAdmin(c: Ctx): Promise<{ p: Principal; user: User }> {
  const who = await requireConsoleUser(c);
  if (who.user.role !== "admin") throw forbidden("only a workspace admin can manage users and invitations");
  return who;
}

export const consolePublicRoutes = new Hono<AppBindings>()
  .use("/sign-in", noStore)
  .use("/invitations/accept", noStore)
  .post("/sign-in", async (c) => {
    checkSameOrigin(c);
    const body = await jsonBody(c, SignInSchema);
    const db = getDb(c.env.DB);
    const user = await checkCredentials(db, { email: body.email, password: body.password, ...(await attemptOrigin(c, body.email)) });
    const project = await sessionProject(db, user.workspaceId, body.projectId);
    const { secret, csrfToken, row } = await startSession(db, user, project?.id ?? null);
    setSessionCookie(c, secret, SESSION_ABSOLUTE_MS);
    await rememberDevice(c, c.env.ENCRYPTION_KEY, user.email);
    return ok(
      c,
      await sessionView(db, user, row.projectId, {
        sessionId: row.id,
        csrfToken,
        expiresAt: row.expiresAt,
        idleExpiresAt: row.idleExpiresAt,
      }),
    );
  })
  .post("/invitations/accept", async (c) => {
    checkSameOrigin(c);
    const body = await jsonBody(c, AcceptSchema);
    const user = await acceptInvitation(getDb(c.env.DB), body.token, body.name, body.password);
    return ok(c, publicUser(user), { note: "the account is ready: sign in with its email and the password just set" }, 201);
  });

export const consoleUserRoutes = new Hono<AppBindings>()
  .use("/session", noStore)
  .use("/session/project", noStore)
  .use("/invitations", noStore)
  .use("/password", noStore)
  .get("/session", async (c) => {
    const { p, user } = await requireConsoleUser(c);
    const db = getDb(c.env.DB);
    const row = await db.select().from(apiKeys).where(eq(apiKeys.id, p.keyId)).get();
    return ok(
      c,
      await sessionView(db, user, p.projectId, {
        sessionId: p.keyId,
        csrfToken: await csrfTokenFor(presentedSecret(c) ?? ""),
        expiresAt: row?.expiresAt ?? null,
        idleExpiresAt: row?.idleExpiresAt ?? null,
      }),
    );
  })
  .post("/sign-out", async (c) => {
    const p = principalOf(c);
    await getDb(c.env.DB)
      .update(apiKeys)
      .set({ revokedAt: nowIso() })
      .where(and(eq(apiKeys.id, p.keyId), isNull(apiKeys.revokedAt)));
    clearSessionCookie(c);
    return ok(c, { signedOut: true });
  })
  .post("/session/project", async (c) => {
    const { p, user } = await requireConsoleUser(c);
    const body = await jsonBody(c, SwitchProjectSchema);
    const db = getDb(c.env.DB);
    const project = await sessionProject(db, user.workspaceId, body.projectId);
    const row = await db
      .update(apiKeys)
      .set({ projectId: project?.id ?? null })
      .where(eq(apiKeys.id, p.keyId))
      .returning()
      .get();
    return ok(
      c,
      await sessionView(db, user, row?.projectId ?? null, {
        sessionId: p.keyId,
        csrfToken: await csrfTokenFor(presentedSecret(c) ?? ""),
        expiresAt: row?.expiresAt ?? null,
        idleExpiresAt: row?.idleExpiresAt ?? null,
      }),
    );
  })
  .post("/password", async (c) => {
    const { p, user } = await requireConsoleUser(c);
    const body = await jsonBody(c, ChangePasswordSchema);
    const sessionsEnded = await changePassword(getDb(c.env.DB), user, {
      currentPassword: body.currentPassword,
      newPassword: body.newPassword,
      keepSessionId: p.keyId,
      ...(await attemptOrigin(c, user.email)),
    });
    return ok(c, { passwordChanged: true, otherSessionsEnded: sessionsEnded });
  })
  .get("/projects", async (c) => {
    const { user } = await requireConsoleUser(c);
    const rows = await getDb(c.env.DB)
      .select()
      .from(projects)
      .where(and(eq(projects.workspaceId, user.workspaceId), isNull(projects.deletionStartedAt)))
      .orderBy(asc(projects.createdAt))
      .all();
    return ok(
      c,
      rows.map((r) => publicProject(r)),
    );
  })
  .get("/users", async (c) => {
    const { user } = await requireAdmin(c);
    return ok(c, (await listUsers(getDb(c.env.DB), user.workspaceId)).map(publicUser));
  })
  .post("/users/:userId/disable", async (c) => {
    const { user } = await requireAdmin(c);
    const userId = c.req.param("userId");
    if (userId === user.id) throw conflict("you cannot disable your own account", [{ path: "userId", issue: "self" }]);
    return ok(c, publicUser(await disableUser(getDb(c.env.DB), user.workspaceId, userId)));
  })
  .post("/invitations", async (c) => {
    const { user } = await requireAdmin(c);
    const body = await jsonBody(c, InviteSchema);
    const invitation = await createInvitation(getDb(c.env.DB), {
      workspaceId: user.workspaceId,
      email: body.email,
      role: body.role,
      invitedByUserId: user.id,
    });
    return ok(
      c,
      invitation,
      { note: "the token is shown once: hand it to the invitee, who accepts with POST /v1/console/invitations/accept" },
      201,
    );
  });
