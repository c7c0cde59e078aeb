import { and, asc, eq } from "drizzle-orm";
import { nowIso } from "../../contracts/clock";
import { templateRefs, type Preset, type PresetBody } from "../../contracts/workflows";
import type { Db } from "../db/client";
import { presets } from "../db/schema";
import { conflict, notFound } from "../errors";

type PresetRow = typeof presets.$inferSelect;

export function publicPreset(row: PresetRow): Preset {
  const variables = [
    ...new Set(
      templateRefs(row.steps)
        .filter((r) => r.root === "vars")
        .map((r) => r.path),
    ),
  ].sort();
  return {
    presetId: row.id,
    projectId: row.projectId,
    name: row.name,
    description: row.description ?? null,
    steps: row.steps,
    variables,
    webhookUrl: row.webhookUrl ?? null,
    userMetadata: row.userMetadata ?? null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** A preset of the project, by id (or by name, which is unique in its project); 404 on `path` otherwise. */
export async function requirePreset(db: Db, projectId: string, idOrName: string, path: string) {
  const row = await db
    .select()
    .from(presets)
    .where(and(eq(presets.projectId, projectId), idOrName.startsWith("pst_") ? eq(presets.id, idOrName) : eq(presets.name, idOrName)))
    .get();
  if (!row) throw notFound(`preset not found: ${idOrName}`, [{ path, issue: `notFound:${idOrName}` }]);
  return publicPreset(row);
}

export async function listPresets(db: Db, projectId: string) {
  const rows = await db.select().from(presets).where(eq(presets.projectId, projectId)).orderBy(asc(presets.name)).all();
  return rows.map(publicPreset);
}

function nameTaken(name: string) {
  return conflict(`a preset named ${name} already exists in this project`, [{ path: "name", issue: `nameTaken:${name}` }]);
}

export async function insertPreset(db: Db, projectId: string, id: string, body: PresetBody) {
  const now = nowIso();
  const inserted = await db
    .insert(presets)
    .values({
      id,
      projectId,
      name: body.name,
      description: body.description ?? null,
      steps: body.steps,
      webhookUrl: body.webhookUrl ?? null,
      userMetadata: body.userMetadata ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning()
    .get();
  if (!inserted) throw nameTaken(body.name);
  return publicPreset(inserted);
}

export async function replacePreset(db: Db, projectId: string, id: string, body: PresetBody) {
  await requirePreset(db, projectId, id, "presetId");
  const clash = await db
    .select({ id: presets.id })
    .from(presets)
    .where(and(eq(presets.projectId, projectId), eq(presets.name, body.name)))
    .get();
  if (clash && clash.id !== id) throw nameTaken(body.name);
  const row = await db
    .update(presets)
    .set({
      name: body.name,
      description: body.description ?? null,
      steps: body.steps,
      webhookUrl: body.webhookUrl ?? null,
      userMetadata: body.userMetadata ?? null,
      updatedAt: nowIso(),
    })
    .where(and(eq(presets.id, id), eq(presets.projectId, projectId)))
    .returning()
    .get();
  if (!row) throw notFound(`preset not found: ${id}`, [{ path: "presetId", issue: `notFound:${id}` }]);
  return publicPreset(row);
}

export async function deletePreset(db: Db, projectId: string, id: string): Promise<void> {
  const gone = await db
    .delete(presets)
    .where(and(eq(presets.id, id), eq(presets.projectId, projectId)))
    .returning({ id: presets.id })
    .get();
  if (!gone) throw notFound(`preset not found: ${id}`, [{ path: "presetId", issue: `notFound:${id}` }]);
}
