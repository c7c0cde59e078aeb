import { and, asc, eq, gt, isNull } from "drizzle-orm";
import { z } from "zod";
import { newId, randomToken } from "../../contracts/ids";
import type { Db } from "../db/client";
import { apiKeys, userInvitations, users } from "../db/schema";
import { ApiError, conflict, notFound, unauthorized } from "../errors";
import { nowIso } from "../platform/clock";
import { sha256Hex } from "../platform/crypto";
import { DUMMY_PASSWORD_HASH, hashPassword, needsRehash, verifyPassword } from "../platform/password";
import { hitRateLimit, pruneRateLimits, resetRateLimit, type RateLimit } from "../platform/rate-limit";

/** Console users (`usr_`) of a workspace, their invitations and the credential check behind sign-in. */

/** Emails are compared and stored trimmed and lower-case: `Ana@Example.com` and `ana@example.com` are one account. */
export const EmailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email());
export const RoleSchema = z.enum(["admin", "member"]);
export type Role = z.infer<typeof RoleSchema>;
export type User = typeof users.$inferSelect;

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Per email: ten sign-in attempts per 15 minutes; a success clears the count. */
export const SIGN_IN_RATE_LIMIT: RateLimit = { limit: 10, windowMs: 15 * 60 * 1000 };

/** The one answer for an unknown email and a wrong password, so sign-in does not reveal who has an account. */
const BAD_CREDENTIALS = "email or password is wrong";

export function publicUser(u: User) {
  return {
    userId: u.id,
    workspaceId: u.workspaceId,
    email: u.email,
    name: u.name,
    role: u.role,
    createdAt: u.createdAt,
    disabledAt: u.disabledAt,
  };
}

export async function findUser(db: Db, workspaceId: string, userId: string): Promise<User | undefined> {
  return db
    .select()
    .from(users)
    .where(and(eq(users.id, userId), eq(users.workspaceId, workspaceId)))
    .get();
}

async function emailTaken(db: Db, email: string): Promise<void> {
  const existing = await db.select({ id: users.id }).from(users).where(eq(users.email, email)).get();
  if (existing) throw conflict(`a user with email ${email} already exists`, [{ path: "email", issue: "duplicate" }]);
}

/** `email` must already be normalised (EmailSchema) and `password` checked (PasswordSchema). */
export async function createUser(
  db: Db,
  u: { workspaceId: string; email: string; name: string; role: Role; password: string },
): Promise<User> {
  await emailTaken(db, u.email);
  const row: User = {
    id: newId("user"),
    workspaceId: u.workspaceId,
    email: u.email,
    name: u.name,
    role: u.role,
    passwordHash: await hashPassword(u.password),
    createdAt: nowIso(),
    disabledAt: null,
  };
  // The unique index settles a race between two creates of one email.
  const inserted = await db.insert(users).values(row).onConflictDoNothing().returning();
  if (inserted.length === 0) throw conflict(`a user with email ${u.email} already exists`, [{ path: "email", issue: "duplicate" }]);
  return row;
}

/**
 * The user behind an email and password, or 401 with one message for every failure. An unknown email
 * still runs PBKDF2 (against a dummy hash) so it takes as long as a wrong password.
 */
export async function checkCredentials(db: Db, email: string, password: string): Promise<User> {
  // About one sign-in in a hundred sweeps counters a day old; no cron job is needed for it.
  if (Math.random() < 0.01) await pruneRateLimits(db, 24 * 60 * 60 * 1000);
  await hitRateLimit(db, `sign-in:${email}`, SIGN_IN_RATE_LIMIT);
  const user = await db.select().from(users).where(eq(users.email, email)).get();
  const matches = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
  if (!user || !matches) throw unauthorized(BAD_CREDENTIALS);
  if (user.disabledAt) throw unauthorized("this account has been disabled; ask an admin of your workspace");
  await resetRateLimit(db, `sign-in:${email}`);
  if (needsRehash(user.passwordHash)) {
    await db
      .update(users)
      .set({ passwordHash: await hashPassword(password) })
      .where(eq(users.id, user.id));
  }
  return user;
}

export async function listUsers(db: Db, workspaceId: string): Promise<User[]> {
  return db.select().from(users).where(eq(users.workspaceId, workspaceId)).orderBy(asc(users.createdAt)).all();
}

/** Disables a user of the workspace and revokes their sessions at once. */
export async function disableUser(db: Db, workspaceId: string, userId: string): Promise<User> {
  const user = await findUser(db, workspaceId, userId);
  if (!user) throw notFound(`user not found: ${userId}`, [{ path: "userId", issue: `notFound:${userId}` }]);
  const at = nowIso();
  const updated = await db
    .update(users)
    .set({ disabledAt: user.disabledAt ?? at })
    .where(eq(users.id, user.id))
    .returning()
    .get();
  await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.userId, user.id), eq(apiKeys.kind, "console"), isNull(apiKeys.revokedAt)));
  return updated;
}

export function publicInvitation(i: typeof userInvitations.$inferSelect) {
  return {
    invitationId: i.id,
    workspaceId: i.workspaceId,
    email: i.email,
    role: i.role,
    invitedByUserId: i.invitedByUserId,
    createdAt: i.createdAt,
    expiresAt: i.expiresAt,
    acceptedAt: i.acceptedAt,
  };
}

/** A one-time invitation; the token is returned here once and stored only as its SHA-256. */
export async function createInvitation(db: Db, inv: { workspaceId: string; email: string; role: Role; invitedByUserId: string | null }) {
  await emailTaken(db, inv.email);
  const token = `inv_tok_${randomToken(40)}`;
  const now = Date.now();
  const row = {
    id: newId("userInvitation"),
    workspaceId: inv.workspaceId,
    email: inv.email,
    role: inv.role,
    tokenHash: await sha256Hex(token),
    invitedByUserId: inv.invitedByUserId,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + INVITATION_TTL_MS).toISOString(),
    acceptedAt: null,
  };
  await db.insert(userInvitations).values(row);
  return { ...publicInvitation(row), token };
}

/**
 * Accepting claims the invitation with one conditional update (unused and unexpired), so a token
 * works once even when two accepts race; then the user is created with the chosen password.
 */
export async function acceptInvitation(db: Db, token: string, name: string, password: string): Promise<User> {
  const claimed = await db
    .update(userInvitations)
    .set({ acceptedAt: nowIso() })
    .where(
      and(
        eq(userInvitations.tokenHash, await sha256Hex(token)),
        isNull(userInvitations.acceptedAt),
        gt(userInvitations.expiresAt, nowIso()),
      ),
    )
    .returning()
    .get();
  if (!claimed) {
    throw new ApiError("notFound", "this invitation is unknown, already used or expired; ask for a new one", [
      { path: "token", issue: "invalid" },
    ]);
  }
  return createUser(db, { workspaceId: claimed.workspaceId, email: claimed.email, name, role: claimed.role, password });
}
