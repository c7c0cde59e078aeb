import { afterEach, describe, expect, it } from "vitest";
import { MediaJobsError } from "../../../sdk/client";
import { apiError, jobFixture, ok, type FakeApi, type Reply } from "../../support/fake-media-jobs-api";
import { clientWithFake } from "./helpers";

/** Read-your-writes (docs/api.md, "Read-your-writes: x-d1-bookmark"): the client carries the newest bookmark forward. */

let api: FakeApi;
afterEach(async () => api?.close());

const OLDER = "00000010-00000001-00004c6d-aaaa";
const NEWER = "00000011-00000001-00004c6d-bbbb";
const withBookmark = (reply: Reply, bookmark: string): Reply =>
  reply === "drop" ? reply : { ...reply, headers: { "x-d1-bookmark": bookmark } };
const sentBookmarks = () => api.requests.map((r) => r.headers["x-d1-bookmark"]);

describe("the read-your-writes bookmark", () => {
  it("a get after a create sends the bookmark the create was answered", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("POST", "/v1/jobs", withBookmark(ok(jobFixture(), {}, 201), NEWER));
    api.on("GET", "/v1/jobs/job_test1", ok(jobFixture()));
    await c.mj.jobs.create({ serviceType: "metadata", input: { textSourceId: "txt_1" } });
    await c.mj.jobs.get("job_test1");
    expect(sentBookmarks()).toEqual([undefined, NEWER]);
    expect(c.mj.bookmark).toBe(NEWER);
  });

  it("an answer with an older bookmark does not replace the newer one held", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("GET", "/v1/jobs/job_test1", withBookmark(ok(jobFixture()), NEWER), withBookmark(ok(jobFixture()), OLDER), ok(jobFixture()));
    for (let i = 0; i < 3; i++) await c.mj.jobs.get("job_test1");
    expect(sentBookmarks()).toEqual([undefined, NEWER, NEWER]);
  });

  it("an error answer's bookmark is carried forward too", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("GET", "/v1/jobs/job_x", withBookmark(apiError(404, "notFound", "job not found: job_x"), NEWER));
    await expect(c.mj.jobs.get("job_x")).rejects.toBeInstanceOf(MediaJobsError);
    expect(c.mj.bookmark).toBe(NEWER);
  });

  it("a client started from an earlier client's bookmark sends it with its first call, and reports each newer one", async () => {
    const seen: string[] = [];
    const c = await clientWithFake({ bookmark: OLDER, onBookmark: (b) => seen.push(b) });
    api = c.api;
    api.on("GET", "/v1/jobs/job_test1", withBookmark(ok(jobFixture()), NEWER));
    await c.mj.jobs.get("job_test1");
    expect(sentBookmarks()).toEqual([OLDER]);
    expect(seen).toEqual([NEWER]);
  });
});
