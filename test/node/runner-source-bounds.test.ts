import { access, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StepFailure } from "../../contracts/step-failure";
import type { StepHandler } from "../../gpu-runner/handler";
import { BucketStore, PresignedStore, SOURCE, type DownloadLimits } from "../../gpu-runner/object-store";
import { openStorage } from "../../gpu-runner/storage";
import { FakeRunnerApi } from "../support/fake-runner-api";
import { HostileServer, type Answer, hostileServers } from "../support/hostile-server";
import { rejectionOf } from "../support/rejection";
import { startTestRunner } from "../support/runner-harness";

/**
 * A download is bounded by the task's platform settings: `runner.maxSourceBytes` (checked against
 * the declared length first, then counted while streaming: `source_too_large`, final, the partial
 * file deleted) and the free disk it would leave (`runner.minFreeDiskBytes`: `insufficient_disk`,
 * retried on another runner). The sources here are loopback servers that drip bytes slowly and
 * never stop.
 */

const MiB = 1024 * 1024;
const LIMITS: DownloadLimits = { maxBytes: MiB, minFreeDiskBytes: 0 };
const signal = () => new AbortController().signal;

/** 64 KiB every 5 ms, without end and without a declared length. */
const ENDLESS_DRIP: Answer = { stream: { bytes: Infinity, chunkBytes: 64 * 1024, intervalMs: 5 } };

let dir: string;
const start = hostileServers();

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "source-bounds-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const presignedSource = (server: HostileServer) => `${server.url}/in/talk.mp4?X-Amz-Signature=abc`;
const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

async function bucketStore(endpoint: string, limits: DownloadLimits): Promise<BucketStore> {
  const grant = {
    connectionId: "stc_t",
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    accessKeyId: "k",
    secretAccessKey: "s",
    bucket: "media",
  };
  return new BucketStore(await openStorage(grant, { allowLoopback: true }), "media", { source: "in/talk.mp4" }, limits);
}

describe("download bounds", () => {
  it("a source over runner.maxSourceBytes fails source_too_large before it fills the disk, and the partial file is gone", async () => {
    const source = await start(() => ENDLESS_DRIP);
    const file = path.join(dir, "endless");
    const store = new PresignedStore(
      { sourceUrl: presignedSource(source), outputUrls: {} },
      { guard: { allowLoopback: true }, limits: LIMITS },
    );
    const err = await rejectionOf(store.download(SOURCE, file, signal()), StepFailure);
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: "source_too_large", retryable: false });
    expect(err.message).toMatch(
      /more than 1048576 bytes \(1 MiB\) arrived; at most 1048576 bytes \(1 MiB\) are accepted \(runner\.maxSourceBytes\)/,
    );
    expect(err.message).not.toContain("X-Amz-Signature");
    expect(await exists(file)).toBe(false);
    await expect.poll(() => source.seen[0]?.closed).toBe(true);
  });

  it("a bucket source declaring a length over the cap fails before a byte is written", async () => {
    const source = await start(() => ({ stream: { bytes: 10 * 1024 * MiB, declareLength: true } }));
    const file = path.join(dir, "declared");
    const err = await rejectionOf((await bucketStore(source.url, LIMITS)).download(SOURCE, file, signal()), StepFailure);
    expect(err.code).toBe("source_too_large");
    expect(err.message).toContain("media/in/talk.mp4 declares 10737418240 bytes (10 GiB)");
    expect(await exists(file)).toBe(false);
    await expect.poll(() => source.seen[0]?.closed).toBe(true);
    expect(source.bytesSent).toBeLessThan(64 * MiB);
  });

  it("too little free disk for the declared size plus runner.minFreeDiskBytes fails insufficient_disk, retryable", async () => {
    const source = await start(() => ({ status: 200, body: "a small source" }));
    const file = path.join(dir, "no-room");
    const limits = { maxBytes: MiB, minFreeDiskBytes: Number.MAX_SAFE_INTEGER };
    const err = await rejectionOf((await bucketStore(source.url, limits)).download(SOURCE, file, signal()), StepFailure);
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: "insufficient_disk", retryable: true });
    expect(err.message).toMatch(
      /^not enough free disk on this runner for media\/in\/talk\.mp4: 14 bytes needed plus 9007199254740991 bytes \(.*\) kept free \(runner\.minFreeDiskBytes\); another runner may take the retry$/,
    );
    expect(await exists(file)).toBe(false);
  });
});

describe("a runner after a source over the cap", () => {
  /** What every service's handler does first: the job's source to the work directory, through the task's store. */
  const downloadSource: StepHandler = async (ctx) => {
    const objects = await ctx.openObjects({});
    const file = path.join(ctx.workDir, "source");
    return { bytes: await objects.download(SOURCE, file, ctx.signal) };
  };

  it("fails that task source_too_large with the task's settings' cap, then leases and completes the next one", async () => {
    const endless = await start(() => ENDLESS_DRIP);
    const small = await start(() => ({ status: 200, body: "a small source" }));
    const api = await FakeRunnerApi.start();
    const runner = await startTestRunner(api, { handlers: { "download.source": downloadSource } });
    try {
      const task = (url: string) =>
        api.addTask({
          step: { handler: "download.source", stages: ["download"] },
          presigned: { sourceUrl: url, outputUrls: {} },
          settings: { runner: { maxSourceBytes: MiB } },
        });
      const tooLarge = task(presignedSource(endless));
      const next = task(presignedSource(small));
      await api.waitForOutcome(tooLarge.taskId, 20_000);
      await api.waitForOutcome(next.taskId, 20_000);

      expect(api.outcome(tooLarge.taskId)).toBe("fail");
      const failed = api.callsFor(tooLarge.taskId).find((c) => c.route === "fail");
      expect(failed?.body.error).toMatchObject({ code: "source_too_large", retryable: false });
      expect(api.outcome(next.taskId)).toBe("complete");
      expect(api.callsFor(next.taskId).find((c) => c.route === "complete")?.body.result).toEqual({ bytes: 14 });
      expect(endless.seen[0]?.closed).toBe(true);
    } finally {
      await runner.stop();
      await api.close();
    }
  });
});
