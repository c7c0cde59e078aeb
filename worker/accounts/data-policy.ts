import { eq } from "drizzle-orm";
import { effectiveDataPolicy, type DataPolicy, type DataPolicyPatch } from "../../contracts/data-policy";
import type { Db } from "../db/client";
import { projects } from "../db/schema";

/** A project's data policy with every default filled (contracts/data-policy.ts); the defaults for a project that is gone. */
export async function projectDataPolicy(db: Db, projectId: string): Promise<DataPolicy> {
  const row = await db.select({ dataPolicy: projects.dataPolicy }).from(projects).where(eq(projects.id, projectId)).get();
  return effectiveDataPolicy(row?.dataPolicy);
}

/** The policy after a change: the fields sent replace the stored ones, `voiceCloning` whole. */
export function patchedDataPolicy(stored: Partial<DataPolicy> | null, patch: DataPolicyPatch): DataPolicy {
  return effectiveDataPolicy({ ...effectiveDataPolicy(stored), ...patch });
}
