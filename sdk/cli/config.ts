import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { MediaJobsError } from "../client";

/**
 * Where `media-jobs login` keeps the API URL and key: `$XDG_CONFIG_HOME/media-jobs/config.json`, else
 * `~/.config/media-jobs/config.json`, readable by its owner only (0600, in a 0700 directory).
 * `MEDIA_JOBS_URL` and `MEDIA_JOBS_KEY` override it.
 */
export interface CliConfig {
  url: string;
  key: string;
}

type Env = Record<string, string | undefined>;

export function configPath(env: Env): string {
  const base = env["XDG_CONFIG_HOME"] || path.join(env["HOME"] || os.homedir(), ".config");
  return path.join(base, "media-jobs", "config.json");
}

export async function readConfigFile(env: Env): Promise<Partial<CliConfig>> {
  try {
    const parsed = JSON.parse(await readFile(configPath(env), "utf8")) as Partial<CliConfig>;
    return {
      ...(typeof parsed.url === "string" ? { url: parsed.url } : {}),
      ...(typeof parsed.key === "string" ? { key: parsed.key } : {}),
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw err;
  }
}

/** Written to a temporary file first, created 0600, then renamed: the key is never readable by others, not even briefly. */
export async function writeConfigFile(env: Env, config: CliConfig): Promise<string> {
  const file = configPath(env);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(config, null, 2) + "\n", { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, file);
  return file;
}

/** The URL and key to use: environment first, then the config file. */
export async function resolveConfig(env: Env): Promise<CliConfig> {
  const file = await readConfigFile(env);
  const url = env["MEDIA_JOBS_URL"] || file.url;
  const key = env["MEDIA_JOBS_KEY"] || file.key;
  if (!url || !key) {
    throw new MediaJobsError({
      status: 0,
      code: "notLoggedIn",
      message: "not logged in: run `media-jobs login --url <API URL> --key <API key>` or set MEDIA_JOBS_URL and MEDIA_JOBS_KEY",
    });
  }
  return { url, key };
}

/**
 * The read-your-writes bookmark the last command was answered (docs/cli.md), kept beside the
 * config so a `jobs get` after a `jobs submit` in another run reads the job it made. Kept for one
 * API URL: a bookmark means nothing to another deployment's database.
 */
export function bookmarkPath(env: Env): string {
  return path.join(path.dirname(configPath(env)), "bookmark.json");
}

export async function readBookmark(env: Env, url: string): Promise<string | undefined> {
  try {
    const saved = JSON.parse(await readFile(bookmarkPath(env), "utf8")) as { url?: unknown; bookmark?: unknown };
    return saved.url === url && typeof saved.bookmark === "string" ? saved.bookmark : undefined;
  } catch {
    // Missing or unreadable: the next command reads without one, as a first run does.
    return undefined;
  }
}

/**
 * Saved synchronously, as each newer bookmark arrives: the tool may exit right after its last
 * answer, and a write still under way would be lost. Temporary file, then rename: never half written.
 */
export function saveBookmark(env: Env, url: string, bookmark: string): void {
  const file = bookmarkPath(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ url, bookmark }) + "\n", { mode: 0o600 });
  renameSync(tmp, file);
}
