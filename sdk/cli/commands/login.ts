import { Command } from "commander";
import { MediaJobs, MediaJobsError } from "../../client";
import { readConfigFile, writeConfigFile } from "../config";
import { jsonOption, readLine, type Ctx } from "../context";
import { UsageError } from "../exit-codes";
import { writeJson } from "../output";

/** `media-jobs login`. */

export function loginCommand(ctx: Ctx): Command {
  const { io } = ctx;
  return new Command("login")
    .description("save the API URL and key (0600) for later commands; MEDIA_JOBS_URL / MEDIA_JOBS_KEY override them")
    .option("--url <url>", "API base URL, e.g. http://127.0.0.1:8787")
    .option("--key <key>", "project API key (sk_prj_…); read from stdin when omitted")
    .option("--no-verify", "save without checking the key against the API")
    .addOption(jsonOption())
    .action(async (flags: { url?: string; key?: string; verify: boolean; json?: boolean }) => {
      const url = flags.url ?? (await readConfigFile(io.env)).url;
      if (!url) throw new UsageError("--url is required on the first login");
      try {
        new URL(url);
      } catch {
        throw new UsageError(`--url is not a URL: ${url}`);
      }
      if (!flags.key && io.stdin.isTTY) io.stderr.write("API key: ");
      const key = (flags.key ?? (await readLine(io.stdin))).trim();
      if (!key) throw new UsageError("no API key given (--key, or one line on stdin)");
      if (flags.verify) {
        const mj = new MediaJobs({ baseUrl: url, apiKey: key, maxRetries: 0, ...(io.fetch ? { fetch: io.fetch } : {}) });
        try {
          await mj.jobs.list({}, { limit: 1 });
        } catch (err) {
          // 403: the key is real but may not list jobs; that is still a good login.
          if (!(err instanceof MediaJobsError && err.status === 403)) throw err;
        }
      }
      const file = await writeConfigFile(io.env, { url, key });
      if (flags.json) writeJson(io.stdout, { url, configPath: file });
      else io.stderr.write(`logged in to ${url}; saved to ${file}\n`);
    });
}
