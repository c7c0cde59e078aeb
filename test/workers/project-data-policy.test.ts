import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_DATA_POLICY } from "../../contracts/data-policy";
import { call } from "./helpers/api";
import { createTenant, type Tenant } from "./helpers/tenant";

/**
 * A project's data policy (`dataPolicy` on the project, set with `PATCH /v1/projects/{projectId}`):
 * defaults that keep the spec's behaviour, partial updates, and checked values.
 */

let t: Tenant;
beforeAll(async () => {
  t = await createTenant();
});

const patchPolicy = (dataPolicy: unknown, key = t.workspaceKey) =>
  call<Record<string, unknown>>("PATCH", `/v1/projects/${t.projectId}`, { key, body: { dataPolicy } });
const readPolicy = async () =>
  (await call<Record<string, unknown>>("GET", `/v1/projects/${t.projectId}`, { key: t.workspaceKey })).body.data["dataPolicy"];

describe("project data policy", () => {
  it("a project that never set a policy shows the defaults: kept until deleted, redaction on request, no consent needed", async () => {
    const fresh = await createTenant();
    const res = await call<Record<string, unknown>>("GET", `/v1/projects/${fresh.projectId}`, { key: fresh.workspaceKey });
    expect(res.body.data["dataPolicy"]).toEqual(DEFAULT_DATA_POLICY);
  });

  it("a change sets only the fields it sends; the others keep their values", async () => {
    expect((await patchPolicy({ retentionDays: 30 })).status).toBe(200);
    const res = await patchPolicy({ redaction: "required" });
    expect(res.body.data["dataPolicy"]).toMatchObject({ retentionDays: 30, redaction: "required", jobRetentionDays: null });
    expect(await readPolicy()).toMatchObject({ retentionDays: 30, redaction: "required" });
  });

  it("retention goes back to 'until deleted' with null", async () => {
    await patchPolicy({ jobRetentionDays: 7 });
    const res = await patchPolicy({ jobRetentionDays: null });
    expect(res.body.data["dataPolicy"]).toMatchObject({ jobRetentionDays: null });
  });

  it("refuses a retention outside 1–3650 days, an unknown redaction mode and an unknown field with 422", async () => {
    for (const bad of [{ retentionDays: 0 }, { retentionDays: 3651 }, { redaction: "always" }, { keepForever: true }]) {
      const res = await patchPolicy(bad);
      expect(res.status, JSON.stringify(bad)).toBe(422);
      expect(res.body.error?.code).toBe("validationError");
    }
  });

  it("refuses an empty policy change with 422", async () => {
    const res = await patchPolicy({});
    expect(res.status).toBe(422);
  });

  it("a project key cannot change the policy", async () => {
    const res = await patchPolicy({ redaction: "off" }, t.projectKey);
    expect(res.status).toBe(403);
  });
});
