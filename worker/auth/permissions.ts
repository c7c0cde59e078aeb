import { z } from "zod";

/** Permissions a key can hold. The spec names the first eight; the rest cover routes it leaves open. */
export const PROJECT_PERMISSIONS = [
  "job:create",
  "job:read",
  "job:list",
  "job:cancel",
  "job:delete",
  "ai:search",
  "catalog:delete",
  "storage_connection:create",
  "storage_connection:read",
  "storage_connection:delete",
  "transcript:read",
  "transcript:write",
  "transcript:delete",
  "transcript:read_unredacted",
  "glossary:read",
  "glossary:write",
  "voice:read",
  "voice:write",
  "voice_consent:read",
  "voice_consent:write",
  "webhook:replay",
  "workflow:create",
  "workflow:read",
  "workflow:cancel",
  "preset:read",
  "preset:write",
] as const;

export const WORKSPACE_PERMISSIONS = [
  "project:create",
  "project:read",
  "project:update",
  "project:delete",
  "project_api_key:create",
  "project_api_key:read",
  "project_api_key:revoke",
  "workspace:read",
  "console_session:create",
  "audit_log:read",
] as const;

export type Permission = (typeof PROJECT_PERMISSIONS)[number] | (typeof WORKSPACE_PERMISSIONS)[number];

/**
 * Permissions only an exact grant gives: never a wildcard (`transcript:*`, `*`) and never the
 * default grant. Reading a redacted transcript's text as heard is one (docs/api.md "Your data").
 */
export const EXPLICIT_ONLY_PERMISSIONS: readonly Permission[] = ["transcript:read_unredacted"];

/** What a project key or console session holds when none are named: every project permission but the explicit-only ones. */
export const DEFAULT_PROJECT_GRANT = PROJECT_PERMISSIONS.filter((p) => !EXPLICIT_ONLY_PERMISSIONS.includes(p));

/** A grant is a permission or a `resource:*` wildcard (`job:*`), or `*` for everything of the key's kind. */
export const ProjectGrantSchema = z
  .string()
  .refine(
    (g) =>
      g === "*" || (PROJECT_PERMISSIONS as readonly string[]).includes(g) || PROJECT_PERMISSIONS.some((p) => g === p.split(":")[0] + ":*"),
    {
      message: "unknown project permission",
    },
  );
export const WorkspaceGrantSchema = z
  .string()
  .refine(
    (g) =>
      g === "*" ||
      (WORKSPACE_PERMISSIONS as readonly string[]).includes(g) ||
      WORKSPACE_PERMISSIONS.some((p) => g === p.split(":")[0] + ":*"),
    {
      message: "unknown workspace permission",
    },
  );

export function grants(held: readonly string[], needed: Permission): boolean {
  if (EXPLICIT_ONLY_PERMISSIONS.includes(needed)) return held.includes(needed);
  const resource = needed.split(":")[0];
  return held.some((g) => g === needed || g === "*" || g === `${resource}:*`);
}
