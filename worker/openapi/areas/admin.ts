import { z } from "zod";
import { SettingsSchema } from "../../../contracts/settings";
import {
  CreateUserSchema,
  CreateWorkspaceKeySchema,
  CreateWorkspaceSchema,
  SettingsPatchSchema,
  UpdateWorkspaceSchema,
} from "../../routes/admin-schemas";
import { CreateRunnerTokenSchema } from "../../auth/runner-tokens";
import { operations } from "../operation";
import { MigrationBatchSchema, MigrationRequestSchema } from "../../maintenance/migration-batch";

/** worker/routes/admin.ts: the operator's routes, behind ADMIN_SECRET. */

const TAG = "Operator";
const Workspace = z.object({ workspaceId: z.string(), name: z.string(), plan: z.string(), createdAt: z.string() });
const workspaceParam = { workspaceId: "The workspace's id (`wsp_…`)." };
const RunnerToken = z.object({
  runnerTokenId: z.string(),
  name: z.string(),
  prefix: z.string(),
  lanes: z.array(z.string()).nullable(),
  workspaces: z.array(z.string()).nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});

export const adminOperations = operations([
  {
    method: "post",
    path: "/admin/v1/workspaces",
    tag: TAG,
    summary: "Create a workspace",
    description: "Idempotent by name: an existing workspace is answered with 200 and `metadata.created: false`.",
    access: "admin",
    body: CreateWorkspaceSchema,
    bodyExample: { name: "acme", plan: "pro" },
    status: 201,
    data: Workspace,
    metadataDescription: "`created`: whether this call created the workspace.",
  },
  {
    method: "patch",
    path: "/admin/v1/workspaces/:workspaceId",
    tag: TAG,
    summary: "Change a workspace's plan",
    access: "admin",
    params: workspaceParam,
    body: UpdateWorkspaceSchema,
    bodyExample: { plan: "enterprise" },
    data: Workspace,
    errors: ["notFound"],
  },
  {
    method: "post",
    path: "/admin/v1/workspaces/:workspaceId/keys",
    tag: TAG,
    summary: "Create a workspace API key",
    description: "The `secret` (`sk_wsp_…`) is shown once.",
    access: "admin",
    params: workspaceParam,
    body: CreateWorkspaceKeySchema,
    bodyExample: { name: "ops" },
    status: 201,
    data: z.looseObject({ apiKeyId: z.string(), secret: z.string() }),
    errors: ["notFound"],
  },
  {
    method: "post",
    path: "/admin/v1/workspaces/:workspaceId/users",
    tag: TAG,
    summary: "Create a console user",
    description: "A person who signs in to the console with this email and password (PBKDF2-hashed; never stored in the clear).",
    access: "admin",
    params: workspaceParam,
    body: CreateUserSchema,
    bodyExample: { email: "ana@example.com", role: "admin", password: "a long passphrase here" },
    status: 201,
    data: z.looseObject({ userId: z.string(), email: z.string(), role: z.string() }),
    errors: ["notFound", "conflict"],
  },
  {
    method: "post",
    path: "/admin/v1/runner-tokens",
    tag: TAG,
    summary: "Mint a runner token",
    description:
      "A gpu-runner's own credential for /runner/v1. The `secret` (`mjr_…`) is answered once, with `Cache-Control: no-store`; only its SHA-256 is kept. `lanes` and `workspaces` narrow what it may lease (absent: all).",
    access: "admin",
    body: CreateRunnerTokenSchema,
    bodyExample: { name: "gpu-1", lanes: ["high", "normal"] },
    status: 201,
    data: RunnerToken.extend({ secret: z.string() }),
    metadataDescription: "`note`: a reminder that the secret is shown once.",
    errors: ["notFound"],
  },
  {
    method: "get",
    path: "/admin/v1/runner-tokens",
    tag: TAG,
    summary: "List runner tokens",
    description: "Newest first, revoked ones included; never a secret.",
    access: "admin",
    data: z.array(RunnerToken),
  },
  {
    method: "post",
    path: "/admin/v1/runner-tokens/:runnerTokenId/revoke",
    tag: TAG,
    summary: "Revoke a runner token",
    description:
      "At once: the token's next call is refused with 401, a heartbeat of a task it holds included. Revoking again is idempotent.",
    access: "admin",
    params: { runnerTokenId: "The token's id (`rnt_…`)." },
    data: RunnerToken,
    errors: ["notFound"],
  },
  {
    method: "get",
    path: "/admin/v1/settings",
    tag: TAG,
    summary: "Get the platform settings",
    access: "admin",
    data: SettingsSchema,
  },
  {
    method: "patch",
    path: "/admin/v1/settings",
    tag: TAG,
    summary: "Change platform settings",
    description: "Deep-merges the patch into the stored settings; the result must be valid settings.",
    access: "admin",
    body: SettingsPatchSchema,
    bodyExample: { runner: { heartbeatIntervalSeconds: 15 } },
    data: SettingsSchema,
  },
  {
    method: "post",
    path: "/admin/v1/maintenance/data-plane-migration",
    tag: TAG,
    summary: "Move one batch of data into the current data-plane layout",
    description:
      'For a deployment upgraded from a version that kept bulk data and the catalog in D1 (docs/deploy.md, "Moving existing data"): moves up to `limit` owners per phase (default 25) into the BLOBS bucket and the catalog objects, and answers what moved and whether anything remains. Idempotent and resumable: call it until `done`; `npm run admin -- migrate-data-plane` does.',
    access: "admin",
    body: MigrationRequestSchema,
    bodyExample: { limit: 25 },
    data: MigrationBatchSchema,
  },
]);
