import { Hono } from "hono";
import { z } from "zod";
import { getDb } from "../db/client";
import type { AppBindings } from "../env";
import { ok } from "../http/envelope";
import { queryWith } from "../http/validate";
import { loadSettings } from "../platform/settings";
import { POLICY_SERVICE_TYPES, workerService } from "../services/index";

export const PolicyQuery = z.object({
  serviceType: z.enum(POLICY_SERVICE_TYPES, { message: `serviceType must be one of ${POLICY_SERVICE_TYPES.join(", ")}` }),
});

/** GET /v1/jobs/policy — no authentication; each service builds its payload from platform settings. */
export const policyRoutes = new Hono<AppBindings>().get("/", async (c) => {
  const { serviceType } = queryWith(c, PolicyQuery);
  const settings = await loadSettings(getDb(c.env.DB));
  const payload = workerService(serviceType).policy?.(settings) ?? {};
  return ok(c, { serviceType, ...payload });
});
