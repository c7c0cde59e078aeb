/**
 * Lints, format-checks and type-checks the Python client (sdk/python) with tools from the npm
 * registry, the only one this project's machines reach: Ruff's WebAssembly build for lint rules and
 * formatting, Pyright (strict, configured in sdk/python/pyproject.toml) for types.
 * Usage: tsx scripts/lint-python.ts [--write]   (--write applies the formatter instead of checking)
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const ROOT = path.join(import.meta.dirname, "..", "sdk", "python");
const write = process.argv.includes("--write");

/** Ruff's settings for the package (the wasm build reads no pyproject.toml, so they live here). */
const RUFF_SETTINGS = {
  "line-length": 120,
  "target-version": "py311",
  // RUF001-003 flag typographic characters (…, –, ×) that the project's prose uses on purpose.
  lint: { select: ["E", "F", "W", "I", "B", "UP", "SIM", "RUF"], ignore: ["RUF001", "RUF002", "RUF003"] },
};

interface RuffDiagnostic {
  code: string | null;
  message: string;
  start_location: { row: number; column: number };
}
interface RuffWorkspace {
  check(contents: string): RuffDiagnostic[];
  format(contents: string): string;
}
interface RuffModule {
  Workspace: new (options: unknown, encoding: number) => RuffWorkspace;
  PositionEncoding: { Utf16: number };
}

// createRequire resolves through NODE_PATH as well as node_modules, so the tools can also come from elsewhere.
const require = createRequire(import.meta.url);
const ruff = require("@astral-sh/ruff-wasm-nodejs") as RuffModule;

function pythonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return /^(build|dist|__pycache__|.*\.egg-info|\..*)$/.test(entry.name) ? [] : pythonFiles(full);
    return entry.name.endsWith(".py") ? [full] : [];
  });
}

const workspace = new ruff.Workspace(RUFF_SETTINGS, ruff.PositionEncoding.Utf16);
const problems: string[] = [];
for (const file of pythonFiles(ROOT)) {
  const source = readFileSync(file, "utf8");
  const relative = path.relative(process.cwd(), file);
  for (const d of workspace.check(source))
    problems.push(`${relative}:${d.start_location.row}:${d.start_location.column}: ${d.code ?? "syntax"} ${d.message}`);
  const formatted = workspace.format(source);
  if (formatted === source) continue;
  if (write) writeFileSync(file, formatted);
  else problems.push(`${relative}: not formatted (tsx scripts/lint-python.ts --write)`);
}

const pyright = spawnSync(process.execPath, [require.resolve("pyright/index.js"), "-p", ROOT], { stdio: "inherit" });
if (problems.length > 0) console.error(problems.join("\n"));
process.exit(problems.length > 0 || pyright.status !== 0 ? 1 : 0);
