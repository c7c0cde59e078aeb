import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * wrangler.toml's bindings, as `wrangler types` generates them (worker-configuration.d.ts, kept up
 * to date by `wrangler types --check` in the test command), are each declared by the Worker's own
 * `Env` (worker/env.ts, with the JobDO's bindings from durable-objects/env.ts): a binding added to
 * the configuration without its typed declaration fails here, not in production.
 */

const root = path.join(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

/** The property names declared in the body of `interface <name> … {`. */
function interfaceKeys(source: string, name: string): string[] {
  const start = source.search(new RegExp(`interface ${name}\\b[^{]*\\{`));
  if (start < 0) throw new Error(`no interface ${name}`);
  const body = source.slice(source.indexOf("{", start) + 1);
  const end = body.search(/\n\s*\}/);
  return [...body.slice(0, end).matchAll(/^\s+([A-Z][A-Z0-9_]*)\??:/gm)].map((m) => m[1]!);
}

describe("the Worker's Env and wrangler.toml", () => {
  const generated = read("worker-configuration.d.ts");
  const declared = new Set([...interfaceKeys(read("worker/env.ts"), "Env"), ...interfaceKeys(read("durable-objects/env.ts"), "JobEnv")]);

  it("declares every binding of the local configuration", () => {
    const bindings = interfaceKeys(generated, "__BaseEnv_WorkerBindings");
    expect(bindings.length).toBeGreaterThan(5);
    expect(bindings.filter((b) => !declared.has(b))).toEqual([]);
  });

  it("declares every binding of the production environment", () => {
    const bindings = interfaceKeys(generated, "ProductionEnv");
    expect(bindings.length).toBeGreaterThan(5);
    expect(bindings.filter((b) => !declared.has(b))).toEqual([]);
  });
});
