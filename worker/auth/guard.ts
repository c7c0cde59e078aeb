import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppBindings } from "../env";
import { authorize, requirePermission, resolvePrincipal } from "./middleware";
import { routeRule, type ProjectPermission, type RouteRule } from "./route-access";

/**
 * The one gate of `/v1/*`, mounted before every `/v1` route: it finds the route Hono will run, reads
 * that route's rule from the access table (worker/auth/route-access.ts), and lets a public route
 * through, or authenticates the caller (401) and checks the key kind and permission (403) before the
 * handler runs. A path no route matches still needs a key (unknown paths answer 401 before 404, so
 * they reveal nothing). A registered route without a rule is refused: the table is the only place a
 * route gets its access.
 */
export const guard: MiddlewareHandler<AppBindings> = async (c, next) => {
  const route = handlerRoute(c);
  const rule = route ? routeRule(route.method, route.path) : undefined;
  if (route && !rule) {
    // Cannot happen while the route table test passes; fail closed rather than serve an unguarded route.
    throw new Error(`no access rule for ${route.method} ${route.path}`);
  }
  // A signed route checks its own signature (the record's secret), as a public one needs none.
  if (rule?.access === "public" || rule?.access === "signed") return next();
  const principal = await resolvePrincipal(c);
  c.set("auth", principal);
  if (rule) {
    authorize(principal, rule);
    await requireServiceTypePermission(c, rule);
  }
  return next();
};

/**
 * The first route after this middleware that is a handler (middleware is registered for method ALL):
 * the one that will answer. A HEAD request matches GET routes, as Hono serves it.
 */
function handlerRoute(c: Context<AppBindings>): { method: string; path: string } | undefined {
  return matchedRoutes(c)
    .slice(c.req.routeIndex + 1)
    .find((r) => r.method !== "ALL");
}

/**
 * A create whose body names a service type with a permission of its own needs that one too. The body
 * is read here only to find `serviceType`; a body that is not JSON, or names none, is left to the
 * handler's validation (415/422). Hono caches the text, so the handler reads the same bytes again.
 */
async function requireServiceTypePermission(c: Context<AppBindings>, rule: RouteRule): Promise<void> {
  if (rule.access !== "project" || !rule.byServiceType) return;
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(c.req.header("content-type") ?? "")) return;
  let serviceType: unknown;
  try {
    serviceType = (JSON.parse(await c.req.text()) as { serviceType?: unknown } | null)?.serviceType;
  } catch {
    return;
  }
  if (typeof serviceType !== "string" || !Object.hasOwn(rule.byServiceType, serviceType)) return;
  const extra = (rule.byServiceType as Partial<Record<string, ProjectPermission>>)[serviceType];
  if (extra) requirePermission(c.get("auth"), extra);
}
