import { eq } from "drizzle-orm";
import { SettingsSchema, type Settings } from "../../contracts/settings";
import type { Db } from "../db/client";
import { platformSettings } from "../db/schema";
import { nowIso } from "./clock";

const SETTINGS_ROW = 1;

export async function loadSettings(db: Db): Promise<Settings> {
  const row = await db.select().from(platformSettings).where(eq(platformSettings.id, SETTINGS_ROW)).get();
  return SettingsSchema.parse(row?.document ?? {});
}

/** Deep-merges a partial document into the stored one; the result must still parse. */
export async function updateSettings(db: Db, patch: Record<string, unknown>): Promise<Settings> {
  const row = await db.select().from(platformSettings).where(eq(platformSettings.id, SETTINGS_ROW)).get();
  const merged = deepMerge(row?.document ?? {}, patch);
  const parsed = SettingsSchema.parse(merged);
  await db
    .insert(platformSettings)
    .values({ id: SETTINGS_ROW, document: merged, updatedAt: nowIso() })
    .onConflictDoUpdate({ target: platformSettings.id, set: { document: merged, updatedAt: nowIso() } });
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
