import { Command } from "commander";
import { createWriteStream } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { downloadOutputs } from "../../client";
import { S3Client } from "../../../contracts/s3-client";
import { client, jsonOption, type CliIo, type Ctx } from "../context";
import { UsageError } from "../exit-codes";
import { writeJson } from "../output";

/** `media-jobs clips list|download`: the files come from the customer's bucket, with its own credentials. */

function s3FromFlags(env: CliIo["env"], flags: { s3Endpoint?: string; s3Region?: string; pathStyle?: boolean }): S3Client {
  const endpoint = flags.s3Endpoint ?? env["MEDIA_JOBS_S3_ENDPOINT"] ?? env["AWS_ENDPOINT_URL_S3"] ?? env["AWS_ENDPOINT_URL"];
  const accessKeyId = env["AWS_ACCESS_KEY_ID"];
  const secretAccessKey = env["AWS_SECRET_ACCESS_KEY"];
  if (!endpoint || !accessKeyId || !secretAccessKey) {
    throw new UsageError(
      "clips live in your bucket: give --s3-endpoint (or MEDIA_JOBS_S3_ENDPOINT) and set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    );
  }
  return new S3Client({
    endpoint,
    region: flags.s3Region ?? env["AWS_REGION"] ?? "us-east-1",
    forcePathStyle: flags.pathStyle ?? env["MEDIA_JOBS_S3_PATH_STYLE"] === "true",
    accessKeyId,
    secretAccessKey,
  });
}

export function clipsCommand(ctx: Ctx): Command {
  const { io } = ctx;
  const cmd = new Command("clips").description("clip generations and their files");
  cmd
    .command("list")
    .description("list a clip generation's clips, best first")
    .argument("<clipGenerationId>")
    .addOption(jsonOption())
    .action(async (id: string, flags: { json?: boolean }) => {
      const { mj } = await client(io);
      const clips = await mj.clips.list(id);
      if (flags.json) return writeJson(io.stdout, clips);
      for (const c of clips)
        io.stdout.write(
          `${String(c.index).padStart(2)}. ${c.start.toFixed(1)}-${c.end.toFixed(1)}s  score ${c.score.toFixed(2)}  ${c.title}\n    ${c.videoKey}\n`,
        );
    });
  cmd
    .command("download")
    .description("download each clip's MP4 and poster from your bucket")
    .argument("<clipGenerationId>")
    .requiredOption("--dir <dir>", "where to save the files")
    .option(
      "--s3-endpoint <url>",
      "your bucket's S3 endpoint (or MEDIA_JOBS_S3_ENDPOINT); credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY",
    )
    .option("--s3-region <region>", "S3 region (or AWS_REGION; default us-east-1)")
    .option("--path-style", "path-style bucket URLs (MinIO, local stores)")
    .addOption(jsonOption())
    .action(async (id: string, flags: { dir: string; s3Endpoint?: string; s3Region?: string; pathStyle?: boolean; json?: boolean }) => {
      const s3 = s3FromFlags(io.env, flags);
      const { mj } = await client(io);
      const objects = await mj.clips.outputs(id);
      await mkdir(flags.dir, { recursive: true });
      const saved: Array<{ key: string; file: string; bytes: number }> = [];
      await downloadOutputs(s3, objects, async (object, res) => {
        const file = path.join(flags.dir, object.fileName);
        if (!res.body) throw new Error(`empty body for ${object.key}`);
        await pipeline(Readable.fromWeb(res.body as WebReadableStream), createWriteStream(file));
        saved.push({ key: object.key, file, bytes: (await stat(file)).size });
        if (!flags.json) io.stdout.write(`${file}\n`);
      });
      if (flags.json) writeJson(io.stdout, saved);
    });
  return cmd;
}
