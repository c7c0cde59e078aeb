import { PRIORITIES } from "../../contracts/service-types";

/**
 * `npm run admin -- runner-tokens …`: the operator's commands for runner tokens, as the admin route
 * calls they make. Kept apart from scripts/admin.ts (which runs on import) so the argument rules are
 * tested without a server.
 *
 *   runner-tokens create --name NAME [--lanes high,normal] [--workspaces wsp_…,wsp_…]
 *   runner-tokens list
 *   runner-tokens revoke rnt_…
 */
export interface AdminRequest {
  method: "GET" | "POST";
  path: string;
  body?: Record<string, unknown>;
}

export const RUNNER_TOKENS_USAGE =
  "usage: npm run --silent admin -- runner-tokens create --name NAME [--lanes high,normal] [--workspaces wsp_…] | runner-tokens list | runner-tokens revoke rnt_…";

/** A comma-separated option as a list (blanks dropped); undefined when the option was not given. */
function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

export function runnerTokensRequest(
  sub: string | undefined,
  args: readonly string[],
  values: { name?: string | undefined; lanes?: string | undefined; workspaces?: string | undefined },
): AdminRequest {
  if (sub === "list") return { method: "GET", path: "/admin/v1/runner-tokens" };
  if (sub === "revoke") {
    const id = args[0];
    if (!id?.startsWith("rnt_")) throw new Error(`runner-tokens revoke needs the token's id (rnt_…)\n${RUNNER_TOKENS_USAGE}`);
    return { method: "POST", path: `/admin/v1/runner-tokens/${encodeURIComponent(id)}/revoke` };
  }
  if (sub === "create") {
    if (!values.name) throw new Error(`--name is required\n${RUNNER_TOKENS_USAGE}`);
    const lanes = list(values.lanes);
    const workspaces = list(values.workspaces);
    const unknown = lanes?.find((l) => !(PRIORITIES as readonly string[]).includes(l));
    if (unknown !== undefined) throw new Error(`--lanes takes ${PRIORITIES.join(", ")}; got ${unknown}`);
    if (lanes?.length === 0 || workspaces?.length === 0) throw new Error("--lanes and --workspaces need at least one value when given");
    return {
      method: "POST",
      path: "/admin/v1/runner-tokens",
      body: { name: values.name, ...(lanes ? { lanes } : {}), ...(workspaces ? { workspaces } : {}) },
    };
  }
  throw new Error(RUNNER_TOKENS_USAGE);
}
