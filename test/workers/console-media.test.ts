import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import type { Thumbnail } from "../../contracts/thumbnails";
import { call } from "./helpers/api";
import { signedIn, SITE, type Browser } from "./helpers/console";
import { transcriptionBody } from "./helpers/jobs";
import { TINY_JPEG, TINY_MP4 } from "./helpers/media-bytes";
import { testS3 } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";

/**
 * `/console/media/*` on the console's origin (review finding M2): the response's type comes from an
 * allow-list for what the record says the object is, never from the bucket; everything else is an
 * opaque download that no browser renders; no media stays in the browser's cache.
 */

const SCRIPT = "<script>fetch('/v1/console/session').then((r) => r.json()).then((s) => alert(s.data.csrfToken))</script>";
const SVG = `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>`;

let t: Tenant;
let admin: Browser;

beforeAll(async () => {
  // Pro: more transcriptions than the free plan's ten a month.
  t = await createTenant({ plan: "pro" });
  ({ browser: admin } = await signedIn(t, "admin"));
});

/** A transcription of an object uploaded with `contentType`: its record, and so its media route, exists from acceptance. */
async function transcriptOf(body: Uint8Array | string, contentType: string): Promise<string> {
  const key = `${unique("media")}/talk.mp4`;
  await testS3().putObject(t.bucket, key, body, contentType);
  const res = await call<Job>("POST", "/v1/jobs", { key: t.projectKey, body: transcriptionBody(t, key) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return String(res.body.data.input["textSourceId"]);
}

/** A thumbnail on the transcript, as a thumbnail job records it, of an object uploaded with `contentType`. */
async function thumbnailOf(transcriptionId: string, body: Uint8Array | string, contentType: string, name = "cover.jpg"): Promise<string> {
  const key = `${unique("thumbs")}/${name}`;
  await testS3().putObject(t.bucket, key, body, contentType);
  const thumbnail: Thumbnail = {
    thumbnailId: unique("thm"),
    jobId: "job_test",
    kind: "cover",
    bucket: t.bucket,
    key,
    width: 8,
    height: 8,
    bytes: typeof body === "string" ? body.length : body.byteLength,
    frameTimeSec: null,
    scores: { sharpness: 1, brightness: 128, contrast: 10, faces: 0, faceQuality: 0, audioLevelDb: null, total: 0.5 },
    engine: "local",
    model: "compositor",
    engineKind: "compositor",
    prompt: null,
    title: null,
    details: {},
    createdAt: new Date().toISOString(),
  };
  await env.DB.prepare("UPDATE transcripts SET thumbnails = json_insert(thumbnails, '$[#]', json(?)) WHERE id = ?")
    .bind(JSON.stringify(thumbnail), transcriptionId)
    .run();
  return thumbnail.thumbnailId;
}

const media = (path: string, headers: Record<string, string> = {}) =>
  exports.default.fetch(new Request(`${SITE}/console/media/${path}`, { headers: { cookie: admin.cookie, ...headers } }));

/** Every media answer, whatever its type: nothing sniffed, nothing run, nothing cached. */
function expectLockedDown(res: Response) {
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
  expect(res.headers.get("cache-control")).toBe("no-store");
}

describe("what the bucket declares is never what the browser gets", () => {
  it("an object stored as text/html with a script body is an opaque download", async () => {
    const id = await transcriptOf(SCRIPT, "text/html");
    const res = await media(`transcripts/${id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="talk.mp4"');
    expectLockedDown(res);
    expect(await res.text()).toBe(SCRIPT);
  });

  it("a thumbnail stored as image/svg+xml is an opaque download, not an image", async () => {
    const id = await transcriptOf(TINY_MP4, "video/mp4");
    const thumb = await thumbnailOf(id, SVG, "image/svg+xml", "cover.svg");
    const res = await media(`thumbnails/${id}/${thumb}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="cover.svg"');
    expectLockedDown(res);
  });

  it("XML, and an object stored with no type of its own, are opaque downloads", async () => {
    for (const type of ["application/xml", "binary/octet-stream", "text/plain; charset=utf-8"]) {
      const res = await media(`transcripts/${await transcriptOf(SCRIPT, type)}`);
      expect(res.headers.get("content-type"), type).toBe("application/octet-stream");
      expect(res.headers.get("content-disposition"), type).toMatch(/^attachment;/);
      expectLockedDown(res);
      await res.body?.cancel();
    }
  });

  it("an image type is refused where the record says audio or video, and the other way round", async () => {
    const id = await transcriptOf(TINY_JPEG, "image/jpeg");
    const source = await media(`transcripts/${id}`);
    expect(source.headers.get("content-type")).toBe("application/octet-stream");
    await source.body?.cancel();
    const thumb = await thumbnailOf(id, TINY_MP4, "video/mp4", "cover.mp4");
    const poster = await media(`thumbnails/${id}/${thumb}`);
    expect(poster.headers.get("content-type")).toBe("application/octet-stream");
    await poster.body?.cancel();
  });
});

describe("real media plays", () => {
  it("an MP4 is served as video/mp4, inline, byte for byte", async () => {
    const id = await transcriptOf(TINY_MP4, "video/mp4");
    const res = await media(`transcripts/${id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect(res.headers.get("content-disposition")).toBe('inline; filename="talk.mp4"');
    expectLockedDown(res);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(TINY_MP4);
  });

  it("a declared type's parameters and case are dropped: `Video/MP4; codecs=…` is video/mp4", async () => {
    const res = await media(`transcripts/${await transcriptOf(TINY_MP4, 'Video/MP4; codecs="avc1.42C00A"')}`);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    await res.body?.cancel();
  });

  it("a Range request is answered 206 with the range, so the player can seek", async () => {
    const id = await transcriptOf(TINY_MP4, "video/mp4");
    const res = await media(`transcripts/${id}`, { range: "bytes=4-11" });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe(`bytes 4-11/${TINY_MP4.byteLength}`);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expectLockedDown(res);
    expect(await res.text()).toBe("ftypisom");
  });

  it("a JPEG thumbnail is served as image/jpeg, inline", async () => {
    const id = await transcriptOf(TINY_MP4, "video/mp4");
    const thumb = await thumbnailOf(id, TINY_JPEG, "image/jpeg");
    const res = await media(`thumbnails/${id}/${thumb}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect(res.headers.get("content-disposition")).toBe('inline; filename="cover.jpg"');
    expectLockedDown(res);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(TINY_JPEG);
  });

  it("a download's file name keeps only safe characters of the key's last segment", async () => {
    const key = `${unique("names")}/my "talk"; v=2 é.mp4`;
    await testS3().putObject(t.bucket, key, SCRIPT, "text/html");
    const res = await call<Job>("POST", "/v1/jobs", { key: t.projectKey, body: transcriptionBody(t, key) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const out = await media(`transcripts/${String(res.body.data.input["textSourceId"])}`);
    expect(out.headers.get("content-disposition")).toBe('attachment; filename="my__talk___v_2__.mp4"');
    await out.body?.cancel();
  });
});
