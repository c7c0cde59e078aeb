import { eq } from "drizzle-orm";
import { SettingsSchema, type Settings } from "../../contracts/settings";
import type { Db } from "../db/client";
import { platformSettings } from "../db/schema";
import { nowIso } from "../../contracts/clock";

const SETTINGS_ROW = 1;

/**
 * Settings are read on every create, lease and step boundary, and change rarely: each isolate keeps
 * the parsed document for a moment. A change made through this isolate applies at once; other
 * isolates (other locations, the Durable Objects' hosts) see it within SETTINGS_TTL_MS.
 */
export const SETTINGS_TTL_MS = 2_000;
let cached: { settings: Settings; until: number } | null = null;

export async function loadSettings(db: Db): Promise<Settings> {
  if (cached && cached.until > Date.now()) return cached.settings;
  const row = await db.select().from(platformSettings).where(eq(platformSettings.id, SETTINGS_ROW)).get();
  const settings = SettingsSchema.parse(row?.document ?? {});
  cached = { settings, until: Date.now() + SETTINGS_TTL_MS };
  return settings;
}

/** Deep-merges a partial document into the stored one; the result must still parse. */
export async function updateSettings(db: Db, patch: Record<string, unknown>): Promise<Settings> {
  const row = await db.select().from(platformSettings).where(eq(platformSettings.id, SETTINGS_ROW)).get();
  const merged = deepMerge(row?.document ?? {}, patch);
  const parsed = SettingsSchema.parse(merged);
  cached = null;
  await db
    .insert(platformSettings)
    .values({ id: SETTINGS_ROW, document: merged, updatedAt: nowIso() })
    .onConflictDoUpdate({ target: platformSettings.id, set: { document: merged, updatedAt: nowIso() } });
  cached = null;
  return parsed;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function deepMerge(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    const cur = out[k];
    out[k] = isPlainObject(cur) && isPlainObject(v) ? deepMerge(cur, v) : v;
  }
  return out;
}
