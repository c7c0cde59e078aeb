import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { DEFAULT_SETTINGS, FREE_PLAN_QUOTAS, QUOTA_METERS, type QuotaMeter } from "../../contracts/settings";
import { call, expectError } from "./helpers/api";
import { cancelUnfinished, patchSettings } from "./helpers/jobs";
import { createTenant, type Tenant } from "./helpers/tenant";
import { completedTranscript, usage } from "./helpers/transcripts";

/**
 * Plan limits of the hosted-engine services (docs/api.md "Quotas and credits"): a free workspace's
 * dubbing, translation, metadata, summarization and indexing are capped per month by platform
 * settings (`quotas.<plan>.<meter>`), and a create over the cap is 429 `quotaExceeded`, charging
 * nothing. The caps are lowered to 2 here so each rule needs three creates, not thirty.
 */

interface Service {
  serviceType: string;
  meter: QuotaMeter;
  input: (txt: string) => Record<string, unknown>;
}

const SERVICES: Service[] = [
  { serviceType: "dubbing", meter: "dubbing_jobs", input: (txt) => ({ transcriptionId: txt, targetLanguage: "es" }) },
  { serviceType: "translation", meter: "translation_jobs", input: (txt) => ({ textSourceId: txt, targetLanguage: "es" }) },
  { serviceType: "metadata", meter: "metadata_credits", input: (txt) => ({ textSourceId: txt }) },
  { serviceType: "summarization", meter: "summarization_credits", input: (txt) => ({ textSourceJobId: txt }) },
  { serviceType: "indexer", meter: "indexing_credits", input: (txt) => ({ textSourceIds: [txt] }) },
];

const LIMIT = 2;
const tenants: Tenant[] = [];

beforeAll(async () => {
  await patchSettings({ quotas: { free: Object.fromEntries(SERVICES.map((s) => [s.meter, LIMIT])) } });
});
afterAll(async () => {
  await patchSettings({ quotas: { free: Object.fromEntries(SERVICES.map((s) => [s.meter, FREE_PLAN_QUOTAS[s.meter]])) } });
  for (const t of tenants) await cancelUnfinished(t);
});

async function tenantWithTranscript(plan: "free" | "pro"): Promise<{ t: Tenant; txt: string }> {
  const t = await createTenant({ plan });
  tenants.push(t);
  return { t, txt: (await completedTranscript(t, ["Welcome to the show.", "Let us begin."])).textSourceId };
}

const create = (t: Tenant, s: Service, txt: string) =>
  call<Job>("POST", "/v1/jobs", { key: t.projectKey, body: { serviceType: s.serviceType, input: s.input(txt) } });

describe.each(SERVICES)("free plan limit of $serviceType ($meter)", (s) => {
  it(`a free workspace's create past its monthly ${s.meter} is 429 quotaExceeded, charging nothing`, async () => {
    const { t, txt } = await tenantWithTranscript("free");
    for (let i = 0; i < LIMIT; i++) {
      const ok = await create(t, s, txt);
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    }
    const res = await create(t, s, txt);
    expectError(res, 429, "quotaExceeded");
    expect(res.body.error?.details).toEqual([{ path: "serviceType", issue: `quotaExceeded:${s.meter}` }]);
    expect(res.body.error?.message).toMatch(
      new RegExp(`^free plan limit reached for ${s.meter}: ${LIMIT} of ${LIMIT} used this billing period`),
    );
    expect(res.body.metadata["quota"]).toMatchObject({ meter: s.meter, limit: LIMIT, used: LIMIT, requested: 1 });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await usage(t))[s.meter]).toBe(LIMIT);
  });

  it(`a pro workspace has no ${s.meter} limit, and is still metered`, async () => {
    const { t, txt } = await tenantWithTranscript("pro");
    for (let i = 0; i <= LIMIT; i++) expect((await create(t, s, txt)).status).toBe(201);
    expect((await usage(t))[s.meter]).toBe(LIMIT + 1);
  });
});

describe("the plan limits' defaults", () => {
  it("every hosted-engine meter has a free monthly limit, and none for pro or enterprise", () => {
    for (const meter of [
      "dubbing_jobs",
      "dubbing_voices",
      "translation_jobs",
      "metadata_credits",
      "summarization_credits",
      "indexing_credits",
    ] as const) {
      expect(DEFAULT_SETTINGS.quotas.free[meter], meter).toBeGreaterThan(0);
      expect(DEFAULT_SETTINGS.quotas.pro[meter], meter).toBeNull();
      expect(DEFAULT_SETTINGS.quotas.enterprise[meter], meter).toBeNull();
    }
  });

  it("the spec's free limits stay: 10 transcriptions, 1,000 clip credits, 100 thumbnail credits", () => {
    expect(DEFAULT_SETTINGS.quotas.free).toMatchObject({ transcription_jobs: 10, clip_credits: 1000, thumbnail_credits: 100 });
  });

  it("GET /v1/workspace reports every meter with the plan's limit from the settings", async () => {
    const { t } = await tenantWithTranscript("free");
    const res = await call<{ usage: { meters: Array<{ meter: string; limit: number | null }> } }>("GET", "/v1/workspace", {
      key: t.projectKey,
    });
    const limits = Object.fromEntries(res.body.data.usage.meters.map((m) => [m.meter, m.limit]));
    expect(Object.keys(limits)).toEqual([...QUOTA_METERS]);
    expect(limits).toMatchObject({ dubbing_jobs: LIMIT, dubbing_voices: FREE_PLAN_QUOTAS.dubbing_voices, transcription_jobs: 10 });
  });
});
