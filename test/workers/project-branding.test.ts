import { afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { BRAND_LOGO_CALL, type BrandLogoHandover } from "../../contracts/branding";
import type { Job } from "../../contracts/job";
import { presign } from "../support/presign";
import { call } from "./helpers/api";
import { cancelUnfinished, fakeRunner } from "./helpers/jobs";
import { putSource, testS3 } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";
import { completedTranscript } from "./helpers/transcripts";

/**
 * A project's branding (`PATCH /v1/projects/{projectId}` with `branding`): checked when it is set,
 * stored on clip jobs at create, and the logo handed to the runner beside the transcript when a
 * clip uses the `branding` fill.
 */

let t: Tenant;
let txt: string;
// A 1×1 PNG is enough: the Worker only copies the bytes; the runner decodes them.
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="), (c) =>
  c.charCodeAt(0),
);

beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
  txt = (await completedTranscript(t, 3)).textSourceId;
});
afterEach(async () => cancelUnfinished(t));

const patchBranding = (branding: unknown) =>
  call<Record<string, unknown>>("PATCH", `/v1/projects/${t.projectId}`, { key: t.workspaceKey, body: { branding } });

async function putLogo(): Promise<string> {
  const key = `${unique("brand")}/logo.png`;
  await testS3().putObject(t.bucket, key, PNG, "image/png");
  return key;
}

describe("project branding", () => {
  it("stores a colour and a logo from the project's own bucket, and shows them on the project", async () => {
    const key = await putLogo();
    const res = await patchBranding({ color: "#ff5500", logo: { connectionId: t.connectionId, bucket: t.bucket, key } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data["branding"]).toEqual({ color: "#ff5500", logo: { connectionId: t.connectionId, bucket: t.bucket, key } });
  });

  it("refuses a logo that is not in the bucket with 422 logoNotFound", async () => {
    const res = await patchBranding({ color: null, logo: { connectionId: t.connectionId, bucket: t.bucket, key: "no/such/logo.png" } });
    expect(res.status).toBe(422);
    expect(res.body.error?.details).toEqual([{ path: "branding.logo.key", issue: "logoNotFound" }]);
  });

  it("refuses a logo through a connection of another project with 404, naming the path", async () => {
    const other = await createTenant();
    const res = await patchBranding({ logo: { connectionId: other.connectionId, bucket: other.bucket, key: "x.png" } });
    expect(res.status).toBe(404);
    expect(res.body.error?.details?.[0]?.path).toBe("branding.logo.connectionId");
  });

  it("refuses a colour that is not #rrggbb", async () => {
    const res = await patchBranding({ color: "orange" });
    expect(res.status).toBe(422);
    expect(res.body.error?.details?.[0]?.path).toBe("branding.color");
  });

  it("a branded clip job carries the branding and gets the logo beside the transcript", async () => {
    const key = await putLogo();
    expect((await patchBranding({ color: "#112233", logo: { connectionId: t.connectionId, bucket: t.bucket, key } })).status).toBe(200);
    const res = await call<Job>("POST", "/v1/jobs", {
      key: t.projectKey,
      body: {
        serviceType: "clip_generation",
        input: { textSourceId: txt, options: { layout: "horizontal_in_vertical", fillStyle: "branding" } },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const job = res.body.data;
    expect(job.input["branding"]).toMatchObject({ color: "#112233" });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["clip_generation"]);
    const logoKey = String(task.outputs["fetch_transcription"]?.["logoKey"]);
    expect(logoKey).toBe(`_media-jobs/scratch/${job.jobId}/logo`);
    const copied = new Uint8Array(await (await testS3().getObject(t.bucket, logoKey)).arrayBuffer());
    expect(copied).toEqual(PNG);
    await fakeRunner.fail(task, "processing_failed", false);
  });

  it("an s3_presigned branded clip job (no bucket to hand over in) reads the logo through the runner call", async () => {
    const key = await putLogo();
    expect((await patchBranding({ color: "#112233", logo: { connectionId: t.connectionId, bucket: t.bucket, key } })).status).toBe(200);
    const signing = inject("s3");
    const put = (name: string) => presign(signing, "PUT", t.bucket, `${unique("out")}/${name}`);
    const res = await call<Job>("POST", "/v1/jobs", {
      key: t.projectKey,
      body: {
        serviceType: "clip_generation",
        input: {
          sourceType: "s3_presigned",
          textSourceId: txt,
          sourceUrl: await presign(signing, "GET", t.bucket, await putSource(`${unique("presigned")}/talk.mp4`, t.bucket)),
          outputUrls: { video: [await put("clip-1")], poster: [await put("poster-1")] },
          options: { maxClips: 1, layout: "horizontal_in_vertical", fillStyle: "branding" },
        },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const task = await fakeRunner.leaseWhenReady(res.body.data.jobId, ["clip_generation"]);
    expect(task.outputs["fetch_transcription"]?.["logoKey"]).toBeUndefined();
    const handed = await fakeRunner.call<BrandLogoHandover>(task, BRAND_LOGO_CALL, {});
    expect(handed.status, JSON.stringify(handed.body)).toBe(200);
    expect(handed.body.data.logo).toMatchObject({ contentType: "image/png", bucket: t.bucket, key, bytes: PNG.byteLength });
    expect(Uint8Array.from(atob(handed.body.data.logo!.data), (c) => c.charCodeAt(0))).toEqual(PNG);
    await fakeRunner.fail(task, "processing_failed", false);
  });

  it("a clip job without the branding fill gets no logo", async () => {
    const res = await call<Job>("POST", "/v1/jobs", {
      key: t.projectKey,
      body: { serviceType: "clip_generation", input: { textSourceId: txt, options: { layout: "vertical_9_16" } } },
    });
    const task = await fakeRunner.leaseWhenReady(res.body.data.jobId, ["clip_generation"]);
    expect(task.outputs["fetch_transcription"]?.["logoKey"]).toBeUndefined();
    await fakeRunner.fail(task, "processing_failed", false);
  });
});
