import type { ActorKind, Plan, Priority } from "../../contracts/service-types";

/** Who is calling, resolved once by the auth middleware. */
export interface Principal {
  keyKind: "workspace" | "project" | "console";
  keyId: string;
  keyName: string;
  workspaceId: string;
  plan: Plan;
  /** Null for workspace keys. */
  projectId: string | null;
  permissions: string[];
  userId: string | null;
  userHandle: string | null;
}

/** How the Job object labels an actor (createdBy*, cancelRequestedBy*). */
export function actorOf(p: Principal): {
  label: string;
  kind: ActorKind;
  userId: string | null;
  apiKeyId: string | null;
  isConsole: boolean;
} {
  if (p.keyKind === "console") {
    return { label: p.userHandle ?? "Console", kind: "console", userId: p.userId, apiKeyId: null, isConsole: true };
  }
  return { label: p.keyName, kind: "api_key", userId: null, apiKeyId: p.keyId, isConsole: false };
}

/** Who is calling `/runner/v1`, resolved once per request by `authenticateRunner`. */
export interface RunnerIdentity {
  tokenId: string;
  name: string;
  /** Lanes it may lease from; null: every lane. */
  lanes: Priority[] | null;
  /** Workspaces whose jobs it may lease; null: every workspace. */
  workspaces: string[] | null;
}
