import { mkdtemp, readdir, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { S3Client } from "../../../contracts/s3-client";
import { startLocalS3, type LocalS3 } from "../../../scripts/lib/local-s3";
import { jobFixture, ok, startFakeApi, type FakeApi } from "../../support/fake-media-jobs-api";
import { runCli, tempConfigHome } from "./helpers";

/** `clips download` reads the clip files from the customer's bucket (a local S3 here), never through the API. */
let api: FakeApi;
let s3: LocalS3;
let env: Record<string, string>;
beforeEach(async () => {
  api = await startFakeApi();
  s3 = await startLocalS3({ buckets: ["media"] });
  env = {
    XDG_CONFIG_HOME: await tempConfigHome(),
    MEDIA_JOBS_URL: api.url,
    MEDIA_JOBS_KEY: "sk_prj_test",
    MEDIA_JOBS_S3_ENDPOINT: s3.endpoint,
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
  };
  const prefix = "out/clips/clp_1/";
  const clip = (index: number) => ({
    index,
    start: index * 30,
    end: index * 30 + 20,
    durationSec: 20,
    title: `clip ${index}`,
    score: 0.9 - index / 10,
    scoreParts: {},
    text: "words",
    videoKey: `${prefix}clip-0${index}.mp4`,
    posterKey: `${prefix}clip-0${index}.jpg`,
    width: 1080,
    height: 1920,
  });
  api.on(
    "GET",
    "/v1/clip-generations/clp_1",
    ok({ clipGenerationId: "clp_1", jobId: "job_clips", status: "completed", clips: [clip(0), clip(1)] }),
  );
  api.on("GET", "/v1/jobs/job_clips", ok(jobFixture({ jobId: "job_clips", serviceType: "clip_generation", input: { bucket: "media" } })));
  const store = new S3Client({ ...s3, forcePathStyle: true });
  for (const i of [0, 1]) {
    await store.putObject("media", `${prefix}clip-0${i}.mp4`, `mp4 bytes ${i}`, "video/mp4");
    await store.putObject("media", `${prefix}clip-0${i}.jpg`, `jpg bytes ${i}`, "image/jpeg");
  }
});
afterEach(async () => {
  await api.close();
  await s3.close();
});

describe("clips download", () => {
  it("saves each clip's MP4 and poster from the clip job's bucket into --dir", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "clips-"));
    const r = await runCli(["clips", "download", "clp_1", "--dir", dir, "--path-style"], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(["clip-00.jpg", "clip-00.mp4", "clip-01.jpg", "clip-01.mp4"]);
    expect(await readFile(path.join(dir, "clip-01.mp4"), "utf8")).toBe("mp4 bytes 1");
  });

  it("--json lists each saved file with its key and size", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "clips-"));
    const r = await runCli(["clips", "download", "clp_1", "--dir", dir, "--path-style", "--json"], { env });
    expect(JSON.parse(r.stdout)[0]).toEqual({ key: "out/clips/clp_1/clip-00.mp4", file: path.join(dir, "clip-00.mp4"), bytes: 11 });
  });

  it("without bucket credentials it is a usage error naming what to set", async () => {
    const { AWS_SECRET_ACCESS_KEY: _, ...withoutSecret } = env;
    const r = await runCli(["clips", "download", "clp_1", "--dir", os.tmpdir()], { env: withoutSecret });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/AWS_SECRET_ACCESS_KEY/);
  });
});
