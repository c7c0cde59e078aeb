import { describe, expect, it } from "vitest";
import { fillPath, OPERATIONS } from "../../../sdk/client";

describe("the operation table", () => {
  it("every operation is a /v1/ route with its path parameters in {braces}", () => {
    for (const op of Object.values(OPERATIONS)) expect(op.path).toMatch(/^\/v1(\/([a-z-]+|\{[A-Za-z]+\}))+$/);
  });

  it("a path parameter is encoded as one segment, so an id cannot reach another route", () => {
    expect(fillPath("/v1/jobs/{jobId}", { jobId: "../transcriptions/txt_1" })).toBe("/v1/jobs/..%2Ftranscriptions%2Ftxt_1");
  });

  it("a missing path parameter is refused before any request", () => {
    expect(() => fillPath("/v1/jobs/{jobId}/cancel", { jobId: "" })).toThrow(/missing path parameter jobId/);
  });
});
