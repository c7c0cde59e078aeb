import { describe, expect, it } from "vitest";
import { runChild } from "../../gpu-runner/child-process";
import { assertGuardedInputs, FFMPEG, FFPROBE, INPUT_GUARD, runTool, UnguardedInputError } from "../../gpu-runner/media/spawn";

/**
 * media/spawn.ts is the one place the media tools are started. ffmpeg and ffprobe open whatever an
 * input names, and a demuxer opens what the input itself names (playlist segments, manifest base
 * URLs, concat entries): spawn.ts refuses to start either without `-protocol_whitelist` naming
 * local protocols only before every `-i`.
 */
describe("media/spawn.ts: every ffmpeg/ffprobe input is limited to local files", () => {
  it("refuses to start ffmpeg on an input with no -protocol_whitelist before its -i", async () => {
    await expect(runTool(FFMPEG, ["-i", "/tmp/source", "-f", "null", "-"])).rejects.toThrow(UnguardedInputError);
  });

  it("refuses the same through child-process.ts, the other way a child is started", async () => {
    await expect(runChild(FFPROBE, ["-v", "error", "-i", "/tmp/source"], { signal: new AbortController().signal })).rejects.toThrow(
      UnguardedInputError,
    );
  });

  it("refuses ffprobe whose input is a bare path: it could not be checked", () => {
    expect(() => assertGuardedInputs(FFPROBE, ["-v", "error", ...INPUT_GUARD, "/tmp/source"])).toThrow(/must name its input with -i/);
  });

  it("refuses a whitelist that lets an input reach the network", () => {
    expect(() => assertGuardedInputs(FFMPEG, ["-protocol_whitelist", "file,http,tcp", "-i", "/tmp/source", "out.wav"])).toThrow(
      /allows protocols file,http,tcp/,
    );
  });

  it("checks each input on its own: a whitelist before the first does not cover the second", () => {
    const args = [...INPUT_GUARD, "-i", "/tmp/a.wav", "-i", "/tmp/b.wav", "-filter_complex", "amix", "out.wav"];
    expect(() => assertGuardedInputs(FFMPEG, args)).toThrow(/input 2 \(\/tmp\/b\.wav\) has no -protocol_whitelist/);
  });

  it("recognises the tools by name wherever they are installed", () => {
    for (const tool of ["/usr/local/bin/ffmpeg", "ffprobe", "/opt/ffmpeg-6/bin/ffmpeg"]) {
      expect(() => assertGuardedInputs(tool, ["-i", "/tmp/source"]), tool).toThrow(UnguardedInputError);
    }
  });

  it("runs ffmpeg and ffprobe when every input is guarded, and other tools as they are", async () => {
    expect(() => assertGuardedInputs(FFMPEG, [...INPUT_GUARD, "-f", "mov", "-i", "a.mp4", ...INPUT_GUARD, "-i", "b.png"])).not.toThrow();
    expect(() => assertGuardedInputs(FFPROBE, ["-v", "error", ...INPUT_GUARD, "-i", "a.mp4"])).not.toThrow();
    expect(() => assertGuardedInputs("rubberband", ["-i", "in.wav", "out.wav"])).not.toThrow();
    const res = await runTool(FFPROBE, ["-v", "error", ...INPUT_GUARD, "-i", "/nonexistent/file.mp4"]);
    expect(res.code).not.toBe(0);
    expect(res.stderrTail.join(" ")).toMatch(/No such file/);
  });
});
