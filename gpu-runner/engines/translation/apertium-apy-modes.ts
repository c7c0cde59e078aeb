import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * The modes an apertium-apy server should be started with: copies of the installed mode files
 * with the generator's `$1` set to `-n`, as `apertium -u` runs them. apy itself sets `$1` to `-g`
 * (generation with marks), and its `markUnknown=no` strips only `*`, so with the stock modes its
 * output keeps `@` and `#` marks in several pairs (eng-hbs*, en-eo). Only pair modes
 * (`<from>-<to>.mode`) are copied: apy lists no others from this directory anyway.
 *
 *   await writeApyModes(dir)                      then: apertium-apy -p PORT <dir>
 *
 * apy has no option for the address it listens on: it binds every interface, loopback included.
 */
export const APERTIUM_MODES_DIR = "/usr/share/apertium/modes";

export async function writeApyModes(dir: string, from = APERTIUM_MODES_DIR): Promise<string> {
  await mkdir(dir, { recursive: true });
  const names = (await readdir(from)).filter((f) => /^[a-z]{2,3}(_\w+)?-[a-z]{2,3}(_\w+)?\.mode$/.test(f));
  for (const name of names) {
    const mode = await readFile(path.join(from, name), "utf8");
    await writeFile(path.join(dir, name), mode.replaceAll("$1", "-n"));
  }
  return dir;
}

/** The arguments of `apertium-apy` serving `modesDir` on a loopback port. */
export function apyArgs(port: number, modesDir: string): string[] {
  return ["-p", String(port), modesDir];
}
