import { afterEach, describe, expect, it } from "vitest";
import { MediaJobsError } from "../../../sdk/client";
import { apiError, type FakeApi } from "../../support/fake-media-jobs-api";
import { clientWithFake } from "./helpers";

/** `mj.transcriptions.export`: the export route's file, as bytes with what its headers say. */

let api: FakeApi;
afterEach(async () => api?.close());

const EXPORT = "/v1/transcriptions/txt_1/export";
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

describe("transcriptions.export", () => {
  it("resolves to the file's bytes, content type, suggested name (the Unicode one when given) and revision", async () => {
    const c = await clientWithFake();
    api = c.api;
    const bytes = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0xff, 0x00]);
    api.on("GET", EXPORT, {
      status: 200,
      body: bytes,
      headers: {
        "content-type": DOCX,
        "content-disposition": `attachment; filename="Entrevista senora.docx"; filename*=UTF-8''Entrevista%20se%C3%B1ora.docx`,
        "x-transcript-revision": "4",
      },
    });
    const file = await c.mj.transcriptions.export("txt_1", "docx");
    expect(file.bytes).toEqual(bytes);
    expect(file).toMatchObject({ contentType: DOCX, fileName: "Entrevista señora.docx", revision: 4 });
  });

  it("sends the format, the layer and speakers=false only when asked", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("GET", EXPORT, { status: 200, body: "# talk\n", headers: { "content-type": "text/markdown; charset=utf-8" } });
    expect((await c.mj.transcriptions.export("txt_1", "md")).text()).toBe("# talk\n");
    await c.mj.transcriptions.export("txt_1", "md", { layer: "raw", speakers: false });
    expect(api.requests.map((r) => Object.fromEntries(r.query))).toEqual([
      { format: "md" },
      { format: "md", layer: "raw", speakers: "false" },
    ]);
  });

  it("a refusal is a MediaJobsError with the envelope's code and details", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on(
      "GET",
      EXPORT,
      apiError(422, "validationError", "transcription txt_1 is pending", [{ path: "transcriptionId", issue: "jobNotCompleted" }]),
    );
    const err = await c.mj.transcriptions.export("txt_1", "srt").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaJobsError);
    expect(err).toMatchObject({ status: 422, code: "validationError", details: [{ path: "transcriptionId", issue: "jobNotCompleted" }] });
  });

  it("a 5xx is retried like any read", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("GET", EXPORT, apiError(503, "internalError", "try again"), {
      status: 200,
      body: "1\n",
      headers: { "content-type": "text/plain" },
    });
    expect((await c.mj.transcriptions.export("txt_1", "txt")).text()).toBe("1\n");
    expect(api.requests).toHaveLength(2);
  });
});
