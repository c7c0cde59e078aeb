import { z } from "zod";
import { AcceptSchema, ChangePasswordSchema, InviteSchema, SignInSchema, SwitchProjectSchema } from "../../routes/console-auth";
import { operations } from "../operation";
import { EXAMPLE_ID } from "../examples";

/** worker/routes/console-auth.ts: people sign in to the console; workspace admins invite and manage users. */

const TAG = "Console";

const USER_EXAMPLE = {
  userId: EXAMPLE_ID.user,
  workspaceId: EXAMPLE_ID.workspace,
  email: "ana@example.com",
  name: "Ana",
  role: "admin",
  createdAt: "2026-11-23T16:00:00.000Z",
  disabledAt: null,
};

const User = z.looseObject({ userId: z.string(), workspaceId: z.string(), email: z.string(), role: z.string() });
const SessionView = z.looseObject({
  sessionId: z.string(),
  user: User,
  workspace: z.looseObject({ workspaceId: z.string(), name: z.string(), plan: z.string() }),
  project: z.looseObject({ projectId: z.string() }).nullable(),
  csrfToken: z.string(),
  expiresAt: z.string().nullable(),
  idleExpiresAt: z.string().nullable(),
});
const SESSION_EXAMPLE = {
  sessionId: EXAMPLE_ID.consoleSession,
  user: USER_EXAMPLE,
  workspace: { workspaceId: EXAMPLE_ID.workspace, name: "Acme", plan: "pro" },
  project: { projectId: EXAMPLE_ID.project, name: "podcasts" },
  csrfToken: "Jx0…",
  expiresAt: "2026-11-24T04:00:00.000Z",
  idleExpiresAt: "2026-11-23T16:30:00.000Z",
};
const csrf = [
  { name: "X-CSRF-Token", description: "The session's CSRF token (from sign-in or GET /v1/console/session); required with the cookie." },
];

export const consoleOperations = operations([
  {
    method: "post",
    path: "/v1/console/sign-in",
    tag: TAG,
    summary: "Sign in to the console",
    description:
      "Email and password → an HttpOnly, SameSite=Lax session cookie (Secure off loopback) and the session's CSRF token. A wrong email and a wrong password give the same 401. Attempts are throttled by client address, by address and email, and by email, with growing waits (429 with Retry-After; docs/api.md, 'Console and sign-in').",
    access: "public",
    body: SignInSchema,
    bodyExample: { email: "ana@example.com", password: "correct horse battery staple" },
    data: SessionView,
    dataExample: SESSION_EXAMPLE,
    errors: ["unauthorized", "forbidden", "notFound", "rateLimited"],
  },
  {
    method: "post",
    path: "/v1/console/invitations/accept",
    tag: TAG,
    summary: "Accept an invitation",
    description:
      "Sets the invited person's name and password; the token works once and expires after 7 days. An email that already has an account (in any workspace) is a 409 that leaves the invitation unused.",
    access: "public",
    body: AcceptSchema,
    bodyExample: { token: "inv_tok_…", name: "Ben", password: "a long passphrase here" },
    status: 201,
    data: User,
    dataExample: { ...USER_EXAMPLE, email: "ben@example.com", name: "Ben", role: "member" },
    errors: ["forbidden", "notFound", "conflict"],
  },
  {
    method: "get",
    path: "/v1/console/session",
    tag: TAG,
    summary: "The signed-in session",
    description: "The user, workspace, current project, CSRF token and expiry times.",
    access: "console",
    data: SessionView,
    dataExample: SESSION_EXAMPLE,
  },
  {
    method: "post",
    path: "/v1/console/sign-out",
    tag: TAG,
    summary: "Sign out",
    description: "Ends the session at once (a later request with the cookie gets 401) and clears the cookie.",
    access: "console",
    headers: csrf,
    data: z.object({ signedOut: z.literal(true) }),
  },
  {
    method: "post",
    path: "/v1/console/session/project",
    tag: TAG,
    summary: "Switch the session's project",
    description: "A console session acts for one project of the user's workspace at a time.",
    access: "console",
    headers: csrf,
    body: SwitchProjectSchema,
    bodyExample: { projectId: EXAMPLE_ID.project },
    data: SessionView,
    dataExample: SESSION_EXAMPLE,
    errors: ["notFound"],
  },
  {
    method: "get",
    path: "/v1/console/projects",
    tag: TAG,
    summary: "List the user's projects",
    description: "Every project of the signed-in user's workspace (the console's project switcher).",
    access: "console",
    data: z.array(z.looseObject({ projectId: z.string(), name: z.string() })),
  },
  {
    method: "get",
    path: "/v1/console/users",
    tag: TAG,
    summary: "List the workspace's users",
    description: "Workspace admins only.",
    access: "console",
    data: z.array(User),
    dataExample: [USER_EXAMPLE],
  },
  {
    method: "post",
    path: "/v1/console/users/:userId/disable",
    tag: TAG,
    summary: "Disable a user",
    description:
      "Workspace admins only; ends the user's sessions and revokes the invitations they sent, at once. Disabling yourself is a 409.",
    access: "console",
    headers: csrf,
    params: { userId: "The user's id (`usr_…`)." },
    data: User,
    errors: ["notFound", "conflict"],
  },
  {
    method: "post",
    path: "/v1/console/invitations",
    tag: TAG,
    summary: "Invite a person",
    description:
      "Workspace admins only. The invitation's token is shown once; the invitee accepts with POST /v1/console/invitations/accept. A user of the admin's own workspace is a 409; an account elsewhere is answered as a new email.",
    access: "console",
    headers: csrf,
    body: InviteSchema,
    bodyExample: { email: "ben@example.com", role: "member" },
    status: 201,
    data: z.looseObject({ invitationId: z.string(), email: z.string(), token: z.string(), expiresAt: z.string() }),
    errors: ["conflict"],
  },
  {
    method: "post",
    path: "/v1/console/password",
    tag: TAG,
    summary: "Change your password",
    description:
      "A signed-in user's new password, given the current one (checked and throttled like a sign-in). Every other session of the user ends at once; this one stays.",
    access: "console",
    headers: csrf,
    body: ChangePasswordSchema,
    bodyExample: { currentPassword: "correct horse battery staple", newPassword: "a new long passphrase" },
    data: z.object({ passwordChanged: z.literal(true), otherSessionsEnded: z.number().int() }),
    dataExample: { passwordChanged: true, otherSessionsEnded: 1 },
    errors: ["forbidden", "rateLimited"],
  },
]);
