import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import { openImage } from "../../gpu-runner/media/images";
import { runInTask, scratchRoot, TaskScope } from "../../gpu-runner/task-scope";

/** sharp decodes within the running task's picture bound (runner.maxPixels), and scratch files go to the task's work directory. */
describe("decoding an image inside a task", () => {
  let dir: string;
  let png: Buffer;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "images-"));
    png = await sharp({ create: { width: 100, height: 100, channels: 3, background: "#808080" } })
      .png()
      .toBuffer();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const scope = (maxPixels: number) => new TaskScope(dir, DEFAULT_SETTINGS.runner.timeLimits, maxPixels);

  it("refuses an image over the task's runner.maxPixels before decoding it", async () => {
    await expect(runInTask(scope(64 * 64), () => openImage(png).raw().toBuffer())).rejects.toThrow(/exceeds pixel limit/);
  });

  it("decodes an image within it", async () => {
    const { info } = await runInTask(scope(100 * 100), () => openImage(png).raw().toBuffer({ resolveWithObject: true }));
    expect(info.width).toBe(100);
  });

  it("keeps scratch files in the task's work directory, and in the system's outside a task", () => {
    expect(runInTask(scope(1), () => scratchRoot())).toBe(dir);
    expect(scratchRoot()).toBe(os.tmpdir());
  });
});
