import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import { newId, randomToken } from "../../contracts/ids";
import type { Plan } from "../../contracts/service-types";
import { mintSecret, type KeyKind } from "../auth/keys";
import { forgetKeys } from "../auth/key-cache";
import { DEFAULT_PROJECT_GRANT, WORKSPACE_PERMISSIONS } from "../auth/permissions";
import type { Db } from "../db/client";
import { apiKeys, projects, workspaces } from "../db/schema";
import { SEAL_PURPOSES, seal, unseal } from "../platform/crypto";
import { nowIso } from "../../contracts/clock";
import { effectiveDataPolicy } from "../../contracts/data-policy";

/** Account operations shared by the public routes and the operator's admin routes. */

export async function createWorkspace(db: Db, name: string, plan: Plan) {
  const existing = await db.select().from(workspaces).where(eq(workspaces.name, name)).get();
  if (existing) return { workspace: existing, created: false };
  const row = { id: newId("workspace"), name, plan, createdAt: nowIso() };
  await db.insert(workspaces).values(row).onConflictDoNothing();
  const stored = await db.select().from(workspaces).where(eq(workspaces.name, name)).get();
  return { workspace: stored ?? row, created: true };
}

export function publicKey(k: typeof apiKeys.$inferSelect) {
  return {
    apiKeyId: k.id,
    kind: k.kind,
    name: k.name,
    prefix: k.prefix,
    workspaceId: k.workspaceId,
    projectId: k.projectId,
    permissions: k.permissions,
    createdAt: k.createdAt,
    revokedAt: k.revokedAt,
    expiresAt: k.expiresAt,
  };
}

export async function createKey(
  db: Db,
  k: {
    kind: KeyKind;
    workspaceId: string;
    projectId: string | null;
    name: string;
    permissions?: string[];
    userId?: string;
    userHandle?: string;
    expiresAt?: string;
  },
) {
  const minted = await mintSecret(k.kind);
  const defaults = k.kind === "workspace" ? [...WORKSPACE_PERMISSIONS] : [...DEFAULT_PROJECT_GRANT];
  const row = {
    // Console sessions are keys too, named by the prefix the spec's dashboard sessions get.
    id: newId(k.kind === "console" ? "consoleSession" : "apiKey"),
    workspaceId: k.workspaceId,
    projectId: k.projectId,
    kind: k.kind,
    name: k.name,
    prefix: minted.prefix,
    secretHash: minted.hash,
    permissions: k.permissions ?? defaults,
    userId: k.userId ?? null,
    userHandle: k.userHandle ?? null,
    expiresAt: k.expiresAt ?? null,
    idleExpiresAt: null,
    csrfHash: null,
    createdAt: nowIso(),
    revokedAt: null,
  };
  await db.insert(apiKeys).values(row);
  return { ...publicKey(row), secret: minted.secret };
}

const newWebhookSecret = () => "whsec_" + btoa(randomToken(32));
/** Both webhook secret columns seal for the same purpose: a rotation moves the current value to the previous column. */
const webhookSecretSeal = (projectId: string) => ({ purpose: SEAL_PURPOSES.webhookSecret, rowId: projectId });

/** How long the secret before a rotation keeps signing deliveries beside the new one. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export async function createProject(db: Db, encryptionKey: string, workspaceId: string, name: string, webhookUrl: string | null) {
  const secret = newWebhookSecret();
  const id = newId("project");
  const row = {
    id,
    workspaceId,
    name,
    webhookUrl,
    webhookSecretEnc: await seal(encryptionKey, secret, webhookSecretSeal(id)),
    webhookSecretPreviousEnc: null,
    webhookSecretPreviousUntil: null,
    branding: null,
    dataPolicy: null,
    deletionStartedAt: null,
    createdAt: nowIso(),
  };
  await db.insert(projects).values(row);
  return publicProject(row, secret);
}

export function publicProject(p: typeof projects.$inferSelect, webhookSecret?: string) {
  return {
    projectId: p.id,
    workspaceId: p.workspaceId,
    name: p.name,
    webhookUrl: p.webhookUrl,
    branding: p.branding ?? null,
    dataPolicy: effectiveDataPolicy(p.dataPolicy),
    ...(webhookSecret !== undefined ? { webhookSecret } : {}),
    createdAt: p.createdAt,
  };
}

/**
 * The project's webhook URL and the secrets deliveries are signed with: the current one, then the one
 * before the last rotation while its 24 h overlap lasts (receivers accept either signature).
 */
export async function projectWebhookSecrets(
  db: Db,
  encryptionKey: string,
  projectId: string,
): Promise<{ url: string | null; secrets: string[] } | null> {
  const p = await db.select().from(projects).where(eq(projects.id, projectId)).get();
  if (!p) return null;
  const secrets = [await unseal(encryptionKey, p.webhookSecretEnc, webhookSecretSeal(p.id))];
  if (p.webhookSecretPreviousEnc && p.webhookSecretPreviousUntil && Date.parse(p.webhookSecretPreviousUntil) > Date.now()) {
    secrets.push(await unseal(encryptionKey, p.webhookSecretPreviousEnc, webhookSecretSeal(p.id)));
  }
  return { url: p.webhookUrl, secrets };
}

/** A new signing secret, shown once; the old one keeps signing beside it for 24 h. */
export async function rotateWebhookSecret(db: Db, encryptionKey: string, project: typeof projects.$inferSelect) {
  const secret = newWebhookSecret();
  const previousUntil = new Date(Date.now() + WEBHOOK_SECRET_OVERLAP_MS).toISOString();
  const rows = await db
    .update(projects)
    .set({
      webhookSecretEnc: await seal(encryptionKey, secret, webhookSecretSeal(project.id)),
      webhookSecretPreviousEnc: project.webhookSecretEnc,
      webhookSecretPreviousUntil: previousUntil,
    })
    .where(eq(projects.id, project.id))
    .returning();
  return { ...publicProject(rows[0] ?? project, secret), previousSecretValidUntil: previousUntil };
}

export async function findProject(db: Db, workspaceId: string, projectId: string) {
  return db
    .select()
    .from(projects)
    .where(and(eq(projects.id, projectId), eq(projects.workspaceId, workspaceId), isNull(projects.deletionStartedAt)))
    .get();
}

/** A project's API keys, newest first (the API's key routes and the console's keys page). */
export async function listProjectKeys(db: Db, projectId: string) {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.projectId, projectId), eq(apiKeys.kind, "project")))
    .orderBy(desc(apiKeys.createdAt))
    .all();
  return rows.map(publicKey);
}

/**
 * Revokes one of the project's keys (a second revoke keeps the first time) and answers it as it now
 * is; undefined when the id is not a key of this project of one of `kinds`. The API's revoke, with a
 * workspace key, also ends the project's console sessions (`cse_`); the console's keys page, used by
 * people in a session, revokes project keys only.
 */
export async function revokeProjectKey(db: Db, projectId: string, keyId: string, kinds: readonly KeyKind[] = ["project"]) {
  const ofProject = and(eq(apiKeys.id, keyId), eq(apiKeys.projectId, projectId), inArray(apiKeys.kind, [...kinds]));
  await db
    .update(apiKeys)
    .set({ revokedAt: nowIso() })
    .where(and(ofProject, isNull(apiKeys.revokedAt)));
  forgetKeys();
  const row = await db.select().from(apiKeys).where(ofProject).get();
  return row ? publicKey(row) : undefined;
}
