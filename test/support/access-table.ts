import type { RouteRule } from "../../worker/auth/route-access";

/** A rule as the docs' table writes it: `| route | access | permission |`. */
export function docsRow(route: string, rule: RouteRule): string {
  const code = (s: string) => `\`${s}\``;
  const permission =
    rule.access === "public"
      ? "—"
      : rule.access === "signed"
        ? "the record's secret"
        : rule.access === "anyKey"
          ? rule.workspacePermission
            ? `${code(rule.workspacePermission)} (workspace keys)`
            : "—"
          : rule.access === "project"
            ? [
                code(rule.permission),
                ...(rule.also ? [`and ${code(rule.also)}`] : []),
                ...Object.entries(rule.byServiceType ?? {}).map(([type, p]) => `and ${code(p as string)} for ${code(type)}`),
              ].join(" ")
            : rule.permission
              ? code(rule.permission)
              : "—";
  return `| ${code(route)} | ${rule.access} | ${permission} |`;
}
