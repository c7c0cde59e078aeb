import type { Plan } from "../../contracts/service-types";
import type { QuotaMeter, Settings } from "../../contracts/settings";
import { ApiError } from "../errors";
import { billingPeriod, periodResetsAt } from "../platform/clock";

/**
 * Credits and quotas, per workspace and calendar month (UTC). Each service names its meter and
 * what a request costs (worker/services); each plan's monthly limit per meter is a platform
 * setting (`quotas.<plan>.<meter>`, contracts/settings.ts): the free plan's are the spec's Limits
 * table plus the caps that keep hosted-engine cost bounded; `null` is unlimited, still metered.
 */
export function planLimit(settings: Settings, plan: Plan, meter: QuotaMeter): number | null {
  return settings.quotas[plan][meter];
}

function quotaExceeded(plan: Plan, meter: string, limit: number, used: number, amount: number): ApiError {
  const resetsAt = periodResetsAt();
  return new ApiError(
    "quotaExceeded",
    `${plan} plan limit reached for ${meter}: ${used} of ${limit} used this billing period, this request needs ${amount}; the limit resets at ${resetsAt}`,
    [{ path: "serviceType", issue: `quotaExceeded:${meter}` }],
    { quota: { meter, limit, used, requested: amount, resetsAt } },
    { "Retry-After": String(Math.max(1, Math.ceil((Date.parse(resetsAt) - Date.now()) / 1000))) },
  );
}

export interface Charge {
  workspaceId: string;
  period: string;
  meter: string;
  amount: number;
}

/**
 * A charge as one write, to run alone (`charge`) or in a batch with what must commit with it (the
 * create's claim and records, worker/jobs/create.ts): one upsert whose WHERE refuses to pass the
 * limit, so two concurrent creates can never both squeeze under it. It answers `[{ used }]` when it
 * went through and no row when the limit refused it (then `refusal` says so in the spec's terms).
 */
export function chargeWrite(d1: D1Database, settings: Settings, workspaceId: string, plan: Plan, meter: QuotaMeter, amount: number) {
  const period = billingPeriod();
  const limit = planLimit(settings, plan, meter);
  const cap = limit ?? Number.MAX_SAFE_INTEGER;
  const charge: Charge = { workspaceId, period, meter, amount };
  return {
    statement: d1
      .prepare(
        `INSERT INTO usage (workspace_id, period, meter, used) SELECT ?1, ?2, ?3, ?4 WHERE ?4 <= ?5
       ON CONFLICT (workspace_id, period, meter) DO UPDATE SET used = usage.used + excluded.used WHERE usage.used + excluded.used <= ?5
       RETURNING used`,
      )
      .bind(workspaceId, period, meter, amount, cap),
    charge,
    /** The 429 of a charge the limit refused, with what the workspace has used. */
    refusal: async (): Promise<ApiError> => {
      const used = await d1
        .prepare("SELECT used FROM usage WHERE workspace_id = ? AND period = ? AND meter = ?")
        .bind(workspaceId, period, meter)
        .first<{ used: number }>();
      return quotaExceeded(plan, meter, limit ?? 0, used?.used ?? 0, amount);
    },
  };
}

/** Charges atomically (chargeWrite), alone; throws the 429 when the limit refuses it. */
export async function charge(
  d1: D1Database,
  settings: Settings,
  workspaceId: string,
  plan: Plan,
  meter: QuotaMeter,
  amount: number,
): Promise<Charge> {
  const c = chargeWrite(d1, settings, workspaceId, plan, meter, amount);
  if (!(await c.statement.first())) throw await c.refusal();
  return c.charge;
}

/**
 * A read-only look before the create does expensive work (S3 probes): a request that would be
 * refused for quota anyway is refused first. The charge itself stays atomic in `charge`. This is the
 * plan's limit on `meter` and what the workspace has used of it this period.
 */
export interface QuotaUsage {
  plan: Plan;
  meter: QuotaMeter;
  limit: number;
  used: number;
}

/**
 * The read half of the quota's look, which needs no amount: the create starts it beside the
 * service's reference checks (one round trip less), then judges the amount they resolved.
 */
export async function quotaUsage(
  db: D1Database,
  settings: Settings,
  workspaceId: string,
  plan: Plan,
  meter: QuotaMeter,
): Promise<QuotaUsage | null> {
  const limit = planLimit(settings, plan, meter);
  if (limit === null) return null;
  const row = await db
    .prepare("SELECT used FROM usage WHERE workspace_id = ? AND period = ? AND meter = ?")
    .bind(workspaceId, billingPeriod(), meter)
    .first<{ used: number }>();
  return { plan, meter, limit, used: row?.used ?? 0 };
}

/** Refuses `amount` more when it would take the workspace past its plan's limit. */
export function assertWithinQuota(usage: QuotaUsage | null, amount: number): void {
  if (usage && usage.used + amount > usage.limit) throw quotaExceeded(usage.plan, usage.meter, usage.limit, usage.used, amount);
}

/** Gives a charge back when the job could not be created after all (nothing was accepted). */
export async function refund(db: D1Database, c: Charge): Promise<void> {
  await db
    .prepare("UPDATE usage SET used = MAX(0, used - ?) WHERE workspace_id = ? AND period = ? AND meter = ?")
    .bind(c.amount, c.workspaceId, c.period, c.meter)
    .run();
}

/** Every meter, in service order (the usage report lists them all, used or not). */
export async function usageFor(db: D1Database, settings: Settings, workspaceId: string, plan: Plan, meterNames: readonly QuotaMeter[]) {
  const period = billingPeriod();
  const rows = await db
    .prepare("SELECT meter, used FROM usage WHERE workspace_id = ? AND period = ?")
    .bind(workspaceId, period)
    .all<{ meter: string; used: number }>();
  const used = new Map(rows.results.map((r) => [r.meter, r.used]));
  const meters = meterNames.map((meter) => {
    const limit = planLimit(settings, plan, meter);
    const u = used.get(meter) ?? 0;
    return { meter, used: u, limit, remaining: limit === null ? null : Math.max(0, limit - u) };
  });
  return { period, periodStart: `${period}-01T00:00:00.000Z`, resetsAt: periodResetsAt(), meters };
}
