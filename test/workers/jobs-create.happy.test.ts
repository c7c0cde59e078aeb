import { describe, expect, it } from "vitest";
import { call } from "./helpers/api";
import { putSource } from "./helpers/s3";
import { createTenant, unique } from "./helpers/tenant";

describe("POST /v1/jobs (transcription, s3_direct)", () => {
  it("accepts a valid transcription and answers 201 with the queued job", async () => {
    const t = await createTenant();
    const key = await putSource(`${unique("in")}/talk.mp4`);
    const res = await call<Record<string, any>>("POST", "/v1/jobs", {
      key: t.projectKey,
      body: { serviceType: "transcription", input: { sourceType: "s3_direct", connectionId: t.connectionId, bucket: t.bucket, sourceKey: key } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.status).toBe("queued");
    expect(res.body.data.priority).toBe("low");
    expect(res.body.data.input.textSourceId).toMatch(/^txt_/);
  });
});
