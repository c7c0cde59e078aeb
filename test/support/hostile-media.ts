import { existsSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import { FFMPEG, INPUT_GUARD, runToolOk } from "../../gpu-runner/media/spawn";

/**
 * Media a hostile customer uploads, built at test time: playlists and manifests named `.mp4` that
 * name a URL, pictures and frame rates over the bounds, containers that lie about their duration.
 * Files that cost more than a moment to build are cached per machine, like media-fixtures.ts.
 */

const CACHE = path.join(os.tmpdir(), "media-jobs-hostile-fixtures-v1");
const FF = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error"];

async function cached(name: string, build: (out: string) => Promise<void>): Promise<string> {
  const target = path.join(CACHE, name);
  if (existsSync(target)) return target;
  await mkdir(CACHE, { recursive: true });
  const tmp = path.join(CACHE, `.${process.pid}-${Math.random().toString(36).slice(2)}-${name}`);
  await build(tmp);
  await rename(tmp, target);
  return target;
}

/** A TCP listener on loopback that counts every connection made to it (and answers none). */
export interface Listener {
  url: string;
  connections(): number;
  close(): Promise<void>;
}

export async function loopbackListener(): Promise<Listener> {
  const sockets = new Set<Socket>();
  let count = 0;
  const server = createServer((s) => {
    count++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => count,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HLS playlist (as ffmpeg content-probes it) whose one segment is `segmentUrl`. */
export const hlsPlaylist = (segmentUrl: string): string =>
  [
    "#EXTM3U",
    "#EXT-X-VERSION:3",
    "#EXT-X-TARGETDURATION:10",
    "#EXT-X-MEDIA-SEQUENCE:0",
    "#EXTINF:10.0,",
    segmentUrl,
    "#EXT-X-ENDLIST",
    "",
  ].join("\n");

/** A DASH manifest whose media is under `baseUrl`. */
export const dashManifest = (baseUrl: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011" type="static" mediaPresentationDuration="PT10S" minBufferTime="PT1S">
  <BaseURL>${baseUrl}/dash/</BaseURL>
  <Period>
    <AdaptationSet mimeType="video/mp4">
      <Representation id="1" bandwidth="100000" codecs="avc1.42c00d" width="160" height="120">
        <BaseURL>video.mp4</BaseURL>
      </Representation>
    </AdaptationSet>
  </Period>
</MPD>
`;

/** An ffconcat list naming `url`. */
export const concatList = (url: string): string => `ffconcat version 1.0\nfile '${url}'\n`;

/** A real MPEG-TS segment (2 s of test picture and tone): what a playlist naming a local file reads. */
export const localSegment = (): Promise<string> =>
  cached("segment.ts", (out) =>
    runToolOk(FFMPEG, [
      ...FF,
      ...["-f", "lavfi", ...INPUT_GUARD, "-i", "testsrc=s=160x120:r=10:d=2"],
      ...["-f", "lavfi", ...INPUT_GUARD, "-i", "sine=f=440:d=2"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-f", "mpegts", out],
    ]).then(() => undefined),
  );

/** One 16000×16000 MJPEG frame in Matroska (ffmpeg's largest square picture): 1.5 MB, a few seconds to build once. */
export const hugePicture = (): Promise<string> =>
  cached("picture-16000x16000.mkv", (out) =>
    runToolOk(FFMPEG, [
      ...FF,
      ...["-f", "lavfi", ...INPUT_GUARD, "-i", "color=c=gray:s=16000x16000:r=1:d=1"],
      ...["-frames:v", "1", "-c:v", "mjpeg", "-q:v", "31", "-f", "matroska", out],
    ]).then(() => undefined),
  );

/** `n` one-second silent audio streams in one Matroska file. */
export const manyStreams = (n: number): Promise<string> =>
  cached(`streams-${n}.mkv`, (out) =>
    runToolOk(FFMPEG, [
      ...FF,
      ...["-f", "lavfi", ...INPUT_GUARD, "-i", "anullsrc=r=8000:cl=mono:d=1"],
      ...Array.from({ length: n }, () => ["-map", "0:a"]).flat(),
      ...["-c:a", "pcm_s16le", "-f", "matroska", out],
    ]).then(() => undefined),
  );

/** One second of a tiny picture at `fps` frames per second, with a tone. */
export const frameRate = (fps: number): Promise<string> =>
  cached(`fps-${fps}.mp4`, (out) =>
    runToolOk(FFMPEG, [
      ...FF,
      ...["-f", "lavfi", ...INPUT_GUARD, "-i", `color=c=gray:s=32x32:r=${fps}:d=1`],
      ...["-f", "lavfi", ...INPUT_GUARD, "-i", "sine=f=440:d=1"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-f", "mp4", out],
    ]).then(() => undefined),
  );

/**
 * `holdsSec` of a tiny picture (1 fps) and a tone, in Matroska, whose Duration element says
 * `declaresSec`: a container lying about its length either way.
 */
export const lyingDuration = (holdsSec: number, declaresSec: number): Promise<string> =>
  cached(`holds-${holdsSec}-declares-${declaresSec}.mkv`, async (out) => {
    const honest = `${out}.honest.mkv`;
    await runToolOk(FFMPEG, [
      ...FF,
      ...["-f", "lavfi", ...INPUT_GUARD, "-i", `testsrc=s=64x48:r=2:d=${holdsSec}`],
      ...["-f", "lavfi", ...INPUT_GUARD, "-i", `sine=f=440:r=16000:d=${holdsSec}`],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-f", "matroska", honest],
    ]);
    const bytes = await readFile(honest);
    // Segment Info's Duration: EBML id 0x4489, 8-byte float, in TimecodeScale units (ffmpeg writes 1 ms).
    const at = bytes.indexOf(Buffer.from([0x44, 0x89, 0x88]));
    if (at < 0) throw new Error("no 8-byte Duration element in the Matroska ffmpeg wrote");
    bytes.writeDoubleBE(declaresSec * 1000, at + 3);
    await writeFile(out, bytes);
  });

/** `sec` seconds of a 32×32 grey picture at 1 fps with silent audio: an hour-long source in a few hundred kB. */
export const tinyLongVideo = (sec: number): Promise<string> =>
  cached(`long-${sec}s.mp4`, (out) =>
    runToolOk(FFMPEG, [
      ...FF,
      ...["-f", "lavfi", ...INPUT_GUARD, "-i", "color=c=gray:s=32x32:r=1"],
      ...["-f", "lavfi", ...INPUT_GUARD, "-i", "anullsrc=r=8000:cl=mono"],
      ...["-t", String(sec), "-c:v", "libx264", "-preset", "ultrafast", "-g", "600", "-c:a", "aac", "-b:a", "8k", "-f", "mp4", out],
    ]).then(() => undefined),
  );
