import type { ServiceType } from "../../contracts/service-types";
import type { PROJECT_PERMISSIONS, WORKSPACE_PERMISSIONS } from "./permissions";

/**
 * Who may call each route of the app, in one table: the key kind and the permission, keyed by method
 * and the path as Hono registers it (`GET /v1/jobs/:jobId`). The guard (worker/auth/guard.ts) reads
 * it for every `/v1` request before any handler runs; handlers never choose a permission themselves.
 * test/workers/routes.security.test.ts checks that this table and `app.routes` name the same routes
 * (a route missing here cannot ship) and runs the security cases of every entry.
 */

export type ProjectPermission = (typeof PROJECT_PERMISSIONS)[number];
export type WorkspacePermission = (typeof WORKSPACE_PERMISSIONS)[number];

export type RouteRule =
  /** No credential: the policy, the API's own description, how a person gets a console session. */
  | { access: "public" }
  /**
   * No key: a secret of the record the path names signs the request, checked by the handler (a
   * storage connection's event secret on its event notifications). Unsigned answers 401.
   */
  | { access: "signed" }
  /**
   * A project key, or a console session (which acts for one project). `byServiceType`: a create whose
   * body names that `serviceType` needs that permission as well (`voice_creation` makes a voice).
   * `also`: a second permission every call needs (a regenerate both creates jobs and rewrites a transcript's outputs).
   */
  | {
      access: "project";
      permission: ProjectPermission;
      also?: ProjectPermission;
      byServiceType?: Partial<Record<ServiceType, ProjectPermission>>;
    }
  /** A console session only (a signed-in person, or the dashboard's pseudo-key); user routes check the person themselves. */
  | { access: "console"; permission?: ProjectPermission }
  | { access: "workspace"; permission: WorkspacePermission }
  /** Any key; a workspace key also needs `workspacePermission`. */
  | { access: "anyKey"; workspacePermission?: WorkspacePermission };

export type Access = RouteRule["access"];

/** `METHOD /path` as Hono spells it. */
export type RouteKey = `${"GET" | "POST" | "PATCH" | "PUT" | "DELETE"} /${string}`;

export const ROUTE_ACCESS = {
  // Meta, outside /v1.
  "GET /": { access: "public" },
  "GET /healthz": { access: "public" },
  "GET /docs/reference": { access: "public" },
  /** The benchmark's floor; answers 404 except on a local stack. */
  "GET /__bench/bare": { access: "public" },
  "GET /v1/openapi.json": { access: "public" },
  "GET /v1/jobs/policy": { access: "public" },

  // Jobs.
  "POST /v1/jobs": {
    access: "project",
    permission: "job:create",
    byServiceType: { voice_creation: "voice:write", transcript_files: "transcript:write", voice_consent: "voice_consent:write" },
  },
  "GET /v1/jobs": { access: "project", permission: "job:list" },
  "GET /v1/jobs/:jobId": { access: "project", permission: "job:read" },
  "GET /v1/jobs/:jobId/progress": { access: "console", permission: "job:read" },
  "POST /v1/jobs/:jobId/cancel": { access: "project", permission: "job:cancel" },
  "DELETE /v1/jobs/:jobId": { access: "project", permission: "job:delete" },
  "GET /v1/jobs/:jobId/webhook-deliveries": { access: "project", permission: "job:read" },
  "POST /v1/jobs/:jobId/webhook-deliveries/:deliveryId/replay": { access: "project", permission: "webhook:replay" },

  // Workspace, projects and their keys.
  "GET /v1/workspace": { access: "anyKey", workspacePermission: "workspace:read" },
  "GET /v1/projects": { access: "workspace", permission: "project:read" },
  "POST /v1/projects": { access: "workspace", permission: "project:create" },
  "GET /v1/projects/:projectId": { access: "workspace", permission: "project:read" },
  "PATCH /v1/projects/:projectId": { access: "workspace", permission: "project:update" },
  "DELETE /v1/projects/:projectId": { access: "workspace", permission: "project:delete" },
  "GET /v1/audit-log": { access: "workspace", permission: "audit_log:read" },
  "GET /v1/audit-log/:auditEventId": { access: "workspace", permission: "audit_log:read" },
  "POST /v1/projects/:projectId/webhook-secret": { access: "workspace", permission: "project:update" },
  "POST /v1/projects/:projectId/api-keys": { access: "workspace", permission: "project_api_key:create" },
  "GET /v1/projects/:projectId/api-keys": { access: "workspace", permission: "project_api_key:read" },
  "POST /v1/projects/:projectId/api-keys/:keyId/revoke": { access: "workspace", permission: "project_api_key:revoke" },

  // Console sessions and users.
  "POST /v1/console/sessions": { access: "workspace", permission: "console_session:create" },
  "POST /v1/console/sign-in": { access: "public" },
  "POST /v1/console/invitations/accept": { access: "public" },
  "GET /v1/console/session": { access: "console" },
  "POST /v1/console/sign-out": { access: "console" },
  "POST /v1/console/session/project": { access: "console" },
  "POST /v1/console/password": { access: "console" },
  "GET /v1/console/projects": { access: "console" },
  "GET /v1/console/users": { access: "console" },
  "POST /v1/console/users/:userId/disable": { access: "console" },
  "POST /v1/console/invitations": { access: "console" },

  // Storage connections.
  "POST /v1/storage-connections": { access: "project", permission: "storage_connection:create" },
  "GET /v1/storage-connections": { access: "project", permission: "storage_connection:read" },
  "GET /v1/storage-connections/:connectionId": { access: "project", permission: "storage_connection:read" },
  "POST /v1/storage-connections/:connectionId/deactivate": { access: "project", permission: "storage_connection:delete" },
  "PUT /v1/storage-connections/:connectionId/triggers": { access: "project", permission: "storage_connection:create", also: "preset:read" },
  "POST /v1/storage-connections/:connectionId/event-secret": { access: "project", permission: "storage_connection:create" },
  /** A store's event notifications: no key, the connection's event secret signs them (worker/workflows/triggers.ts). */
  "POST /v1/storage-connections/:connectionId/events": { access: "signed" },

  // Workflows and presets (worker/workflows).
  "POST /v1/workflows": { access: "project", permission: "workflow:create", also: "job:create" },
  "GET /v1/workflows": { access: "project", permission: "workflow:read" },
  "GET /v1/workflows/:workflowId": { access: "project", permission: "workflow:read" },
  "POST /v1/workflows/:workflowId/cancel": { access: "project", permission: "workflow:cancel" },
  "POST /v1/presets": { access: "project", permission: "preset:write" },
  "GET /v1/presets": { access: "project", permission: "preset:read" },
  "GET /v1/presets/:presetId": { access: "project", permission: "preset:read" },
  "PUT /v1/presets/:presetId": { access: "project", permission: "preset:write" },
  "DELETE /v1/presets/:presetId": { access: "project", permission: "preset:write" },

  // Transcripts and the glossary (worker/services/transcription).
  "GET /v1/transcriptions/:transcriptionId": { access: "project", permission: "transcript:read" },
  "DELETE /v1/transcriptions/:transcriptionId": { access: "project", permission: "transcript:delete" },
  "GET /v1/transcriptions/:transcriptionId/unredacted": { access: "project", permission: "transcript:read_unredacted" },
  "PATCH /v1/transcriptions/:transcriptionId/segments": { access: "project", permission: "transcript:write" },
  "PATCH /v1/transcriptions/:transcriptionId/speakers": { access: "project", permission: "transcript:write" },
  "GET /v1/transcriptions/:transcriptionId/export": { access: "project", permission: "transcript:read" },
  "GET /v1/glossary": { access: "project", permission: "glossary:read" },
  "POST /v1/glossary": { access: "project", permission: "glossary:write" },
  "DELETE /v1/glossary/:termId": { access: "project", permission: "glossary:write" },

  // Records of the other services (worker/services/*).
  "GET /v1/clip-generations/:clipGenerationId": { access: "project", permission: "job:read" },
  "GET /v1/thumbnails/:transcriptionId": { access: "project", permission: "transcript:read" },
  "GET /v1/transcriptions/:transcriptionId/metadata": { access: "project", permission: "transcript:read" },
  "GET /v1/summarizations/:summarizationId": { access: "project", permission: "job:read" },
  "POST /v1/catalog/search": { access: "project", permission: "ai:search" },
  "GET /v1/catalog/transcriptions": { access: "project", permission: "ai:search" },
  "DELETE /v1/catalog/transcriptions/:textSourceId": { access: "project", permission: "catalog:delete" },
  "GET /v1/translations/:translationId": { access: "project", permission: "transcript:read" },
  "GET /v1/transcriptions/:transcriptionId/translations": { access: "project", permission: "transcript:read" },
  "GET /v1/transcriptions/:transcriptionId/translations/:languageKey": { access: "project", permission: "transcript:read" },
  "GET /v1/dubbings/:dubbingId": { access: "project", permission: "job:read" },
  "GET /v1/transcriptions/:transcriptionId/dubbings": { access: "project", permission: "job:read" },
  "POST /v1/transcriptions/:transcriptionId/regenerate": { access: "project", permission: "job:create", also: "transcript:write" },
  // The OpenAI-compatible endpoint: it makes a transcription job and answers with its transcript.
  "POST /v1/audio/transcriptions": { access: "project", permission: "job:create", also: "transcript:read" },
  "POST /v1/voices": { access: "project", permission: "voice:write" },
  "GET /v1/voices": { access: "project", permission: "voice:read" },
  "GET /v1/voices/:voiceId": { access: "project", permission: "voice:read" },
  "DELETE /v1/voices/:voiceId": { access: "project", permission: "voice:write" },
  "POST /v1/voice-consents": { access: "project", permission: "voice_consent:write" },
  "POST /v1/voice-consents/phrases": { access: "project", permission: "voice_consent:write" },
  "GET /v1/voice-consents": { access: "project", permission: "voice_consent:read" },
  "GET /v1/voice-consents/:consentId": { access: "project", permission: "voice_consent:read" },
  "DELETE /v1/voice-consents/:consentId": { access: "project", permission: "voice_consent:write" },
} as const satisfies Record<RouteKey, RouteRule>;

/**
 * Routes outside the customer API, behind the Worker's own secrets (their sub-apps check them), by
 * path prefix: whatever routes they gain, no customer key opens them.
 */
export const SECRET_PREFIXES = { "/admin/v1/": "admin", "/runner/v1/": "runner" } as const;

/** The rule of a registered route, or undefined when the table has none (the guard then refuses). */
export function routeRule(method: string, path: string): RouteRule | undefined {
  return (ROUTE_ACCESS as Record<string, RouteRule>)[`${method} ${path}`];
}
