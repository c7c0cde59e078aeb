import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROUTE_ACCESS } from "../../worker/auth/route-access";
import { docsRow } from "../support/access-table";

/**
 * docs/api.md lists the access table (Limits and safety, "The access table"); this keeps the list
 * and worker/auth/route-access.ts the same, row for row.
 */

function documentedRows(): string[] {
  const doc = readFileSync(path.join(import.meta.dirname, "../../docs/api.md"), "utf8");
  const start = doc.indexOf("<!-- access-table:start -->");
  const end = doc.indexOf("<!-- access-table:end -->");
  if (start < 0 || end < start) throw new Error("docs/api.md has no access-table markers");
  return doc
    .slice(start, end)
    .split("\n")
    .filter((l) => l.startsWith("| `"));
}

describe("docs/api.md access table", () => {
  it("lists every route of worker/auth/route-access.ts with its access and permission, in the table's order", () => {
    expect(documentedRows()).toEqual(Object.entries(ROUTE_ACCESS).map(([route, rule]) => docsRow(route, rule)));
  });
});
