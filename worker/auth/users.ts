import { and, asc, eq, gt, isNull, ne } from "drizzle-orm";
import { z } from "zod";
import { newId, randomToken } from "../../contracts/ids";
import type { Db } from "../db/client";
import { apiKeys, userInvitations, users } from "../db/schema";
import { ApiError, conflict, notFound, unauthorized } from "../errors";
import { sha256Hex } from "../platform/crypto";
import { DUMMY_PASSWORD_HASH, hashPassword, needsRehash, verifyPassword } from "../platform/password";
import { admitAttempt, forgetAttempts, refundAttempt } from "../platform/rate-limit";
import { signInKeys } from "./sign-in-throttle";
import { nowIso } from "../../contracts/clock";

/** Console users (`usr_`) of a workspace, their invitations and the credential check behind sign-in. */

/** Emails are compared and stored trimmed and lower-case: `Ana@Example.com` and `ana@example.com` are one account. */
export const EmailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email());
export const RoleSchema = z.enum(["admin", "member"]);
export type Role = z.infer<typeof RoleSchema>;
export type User = typeof users.$inferSelect;

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

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

async function userByEmail(db: Db, email: string) {
  return db.select({ id: users.id, workspaceId: users.workspaceId }).from(users).where(eq(users.email, email)).get();
}

async function emailTaken(db: Db, email: string): Promise<void> {
  if (await userByEmail(db, email)) throw conflict(`a user with email ${email} already exists`, [{ path: "email", issue: "duplicate" }]);
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

/** One sign-in attempt: the normalised email, the password, where it comes from, and whether that browser has signed in to the account before. */
export interface SignInAttempt {
  email: string;
  password: string;
  /** clientAddressKey() of the request. */
  address: string;
  /** The request carries a device cookie for this email (console/device.ts). */
  trustedDevice: boolean;
}

/**
 * The user behind an email and password, or 401 with one message for every failure. The attempt is
 * first admitted by the sign-in throttle (auth/sign-in-throttle.ts) or refused with 429 before the
 * email is looked up, so the throttle answers a known and an unknown email alike. An unknown email
 * still runs PBKDF2 (against a dummy hash) so it takes as long as a wrong password.
 */
export async function checkCredentials(db: Db, attempt: SignInAttempt): Promise<User> {
  const keys = await signInKeys(attempt.address, attempt.email, attempt.trustedDevice);
  await admitAttempt(db.$client, keys.all);
  const user = await db.select().from(users).where(eq(users.email, attempt.email)).get();
  const matches = await verifyPassword(attempt.password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
  if (!user || !matches) throw unauthorized(BAD_CREDENTIALS);
  if (user.disabledAt) throw unauthorized("this account has been disabled; ask an admin of your workspace");
  // A success clears the address's counters and takes its attempt back from the shared email bucket.
  await forgetAttempts(db.$client, keys.address);
  if (keys.emailBucket) await refundAttempt(db.$client, keys.emailBucket);
  if (needsRehash(user.passwordHash)) {
    await db
      .update(users)
      .set({ passwordHash: await hashPassword(attempt.password) })
      .where(eq(users.id, user.id));
  }
  return user;
}

/**
 * A signed-in user's new password: the current one is checked like a sign-in (the same throttle, so
 * a stolen session cannot guess it quickly), then every other console session of the user ends.
 * Returns how many sessions were ended.
 */
export async function changePassword(
  db: Db,
  user: User,
  change: { currentPassword: string; newPassword: string; address: string; trustedDevice: boolean; keepSessionId: string },
): Promise<number> {
  const keys = await signInKeys(change.address, user.email, change.trustedDevice);
  await admitAttempt(db.$client, keys.all);
  if (!(await verifyPassword(change.currentPassword, user.passwordHash))) {
    throw new ApiError("forbidden", "the current password is wrong", [{ path: "currentPassword", issue: "wrong" }]);
  }
  await forgetAttempts(db.$client, keys.address);
  if (keys.emailBucket) await refundAttempt(db.$client, keys.emailBucket);
  await db
    .update(users)
    .set({ passwordHash: await hashPassword(change.newPassword) })
    .where(eq(users.id, user.id));
  const ended = await db
    .update(apiKeys)
    .set({ revokedAt: nowIso() })
    .where(and(eq(apiKeys.userId, user.id), eq(apiKeys.kind, "console"), isNull(apiKeys.revokedAt), ne(apiKeys.id, change.keepSessionId)))
    .returning({ id: apiKeys.id });
  return ended.length;
}

export async function listUsers(db: Db, workspaceId: string): Promise<User[]> {
  return db.select().from(users).where(eq(users.workspaceId, workspaceId)).orderBy(asc(users.createdAt)).all();
}

/** Disables a user of the workspace and revokes, at once, their sessions and the invitations they sent that are still open. */
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
  await db
    .update(userInvitations)
    .set({ revokedAt: at })
    .where(and(eq(userInvitations.invitedByUserId, user.id), isNull(userInvitations.acceptedAt), isNull(userInvitations.revokedAt)));
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
    revokedAt: i.revokedAt,
  };
}

/**
 * A one-time invitation; the token is returned here once and stored only as its SHA-256. A user of
 * the admin's own workspace with the email is a 409 (the admin can list them anyway); an account in
 * another workspace is not looked at here, so the answer does not tell an admin who has an account
 * elsewhere (review finding L5). Acceptance settles that case.
 */
export async function createInvitation(db: Db, inv: { workspaceId: string; email: string; role: Role; invitedByUserId: string | null }) {
  const existing = await userByEmail(db, inv.email);
  if (existing?.workspaceId === inv.workspaceId) {
    throw conflict(`${inv.email} is already a user of this workspace`, [{ path: "email", issue: "duplicate" }]);
  }
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
    revokedAt: null,
  };
  await db.insert(userInvitations).values(row);
  return { ...publicInvitation(row), token };
}

/** What acceptance answers for a token that cannot be used, whatever the reason: one message. */
const INVALID_INVITATION = () =>
  new ApiError("notFound", "this invitation is unknown, already used, revoked or expired; ask for a new one", [
    { path: "token", issue: "invalid" },
  ]);

/**
 * Accepting claims the invitation with one conditional update (unused, unrevoked and unexpired), so a
 * token works once even when two accepts race; then the user is created with the chosen password.
 *
 * An email that already has an account (in any workspace: an account belongs to one) is a 409 that
 * leaves the invitation unused: the person signs in to the account they have, or asks to be invited
 * under another email. That answer goes to whoever holds the token, which is how an email's owner
 * learns it; an admin who accepts their own invitation learns it too, one invitation at a time, each
 * one recorded with its sender (docs/api.md, "Console sign-in").
 */
export async function acceptInvitation(db: Db, token: string, name: string, password: string): Promise<User> {
  const tokenHash = await sha256Hex(token);
  const open = and(
    eq(userInvitations.tokenHash, tokenHash),
    isNull(userInvitations.acceptedAt),
    isNull(userInvitations.revokedAt),
    gt(userInvitations.expiresAt, nowIso()),
  );
  const pending = await db.select().from(userInvitations).where(open).get();
  if (!pending) throw INVALID_INVITATION();
  if (await userByEmail(db, pending.email)) throw accountExists();
  const claimed = await db.update(userInvitations).set({ acceptedAt: nowIso() }).where(open).returning().get();
  if (!claimed) throw INVALID_INVITATION();
  try {
    return await createUser(db, { workspaceId: claimed.workspaceId, email: claimed.email, name, role: claimed.role, password });
  } catch (err) {
    // The email got an account between the check and the create: the invitation stays usable, as above.
    await db.update(userInvitations).set({ acceptedAt: null }).where(eq(userInvitations.id, claimed.id));
    if (err instanceof ApiError && err.code === "conflict") throw accountExists();
    throw err;
  }
}

const accountExists = () =>
  conflict(
    "this email already has a console account (an account belongs to one workspace): sign in with it, or ask to be invited with another email",
    [{ path: "token", issue: "accountExists" }],
  );
