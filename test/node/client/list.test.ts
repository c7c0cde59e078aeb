import { afterEach, describe, expect, it } from "vitest";
import { jobFixture, ok, type FakeApi } from "../../support/fake-media-jobs-api";
import { clientWithFake } from "./helpers";

let api: FakeApi;
afterEach(async () => api?.close());

const page = (ids: string[], n: number, totalPages: number) =>
  ok(
    ids.map((jobId) => jobFixture({ jobId })),
    { pagination: { page: n, limit: 2, total: 5, totalPages } },
  );

describe("jobs.list and listAll", () => {
  it("filters are sent as the list API's query, statuses and service types comma-separated", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("GET", "/v1/jobs", page([], 1, 0));
    await c.mj.jobs.list(
      { statuses: ["failed", "cancelled"], serviceTypes: ["transcription"], customerJobRef: "ep-42", sortDir: "asc" },
      { page: 2, limit: 50 },
    );
    expect(Object.fromEntries(api.requests[0]!.query)).toEqual({
      statuses: "failed,cancelled",
      serviceTypes: "transcription",
      customerJobRef: "ep-42",
      sortDir: "asc",
      page: "2",
      limit: "50",
    });
  });

  it("list returns the page and metadata.pagination", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("GET", "/v1/jobs", page(["job_a", "job_b"], 1, 3));
    const res = await c.mj.jobs.list({}, { limit: 2 });
    expect(res.data.map((j) => j.jobId)).toEqual(["job_a", "job_b"]);
    expect(res.pagination).toEqual({ page: 1, limit: 2, total: 5, totalPages: 3 });
  });

  it("listAll yields every job across pages and stops at totalPages", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("GET", "/v1/jobs", (req) => {
      const n = Number(req.query.get("page"));
      return n === 1 ? page(["job_a", "job_b"], 1, 3) : n === 2 ? page(["job_c", "job_d"], 2, 3) : page(["job_e"], 3, 3);
    });
    const ids: string[] = [];
    for await (const job of c.mj.jobs.listAll({}, { limit: 2 })) ids.push(job.jobId);
    expect(ids).toEqual(["job_a", "job_b", "job_c", "job_d", "job_e"]);
    expect(api.requests.map((r) => r.query.get("page"))).toEqual(["1", "2", "3"]);
  });
});
