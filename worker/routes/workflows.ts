import { Hono } from "hono";
import { newId } from "../../contracts/ids";
import { PresetBodySchema } from "../../contracts/workflows";
import { principalOf, projectOf } from "../auth/middleware";
import { actorOf } from "../auth/principal";
import { getDb } from "../db/client";
import type { AppBindings } from "../env";
import { conflict } from "../errors";
import { checkIdempotencyKey } from "../jobs/idempotency";
import { ok } from "../http/envelope";
import { parseWith, queryWith, readJson } from "../http/validate";
import { sha256Hex } from "../platform/crypto";
import { createWorkflow, derivedWorkflowId, replayedWorkflow } from "../workflows/create";
import { checkPresetSteps } from "../workflows/plan";
import { deletePreset, insertPreset, listPresets, replacePreset, requirePreset } from "../workflows/presets";
import { presetInUse } from "../workflows/triggers";
import { workflowStub } from "../workflows/stubs";
import { listWorkflows, ListWorkflowsQuerySchema, loadWorkflow } from "../workflows/view";

/**
 * `/v1/workflows`: create (with Idempotency-Key: the key names the workflow for as long as it
 * exists, so a retry answers the same one), list, read, cancel. docs/api.md "Workflows".
 */
export const workflowRoutes = new Hono<AppBindings>()
  .post("/", async (c) => {
    const p = principalOf(c);
    const { value, raw } = await readJson(c);
    const key = c.req.header("idempotency-key");
    if (!key) return ok(c, await createWorkflow(c.env, p, value), {}, 201);
    checkIdempotencyKey(key);
    const workflowId = await derivedWorkflowId(`${projectOf(p)}\n${key}`);
    const requestHash = await sha256Hex(raw);
    const replayed = await replayedWorkflow(c.env, workflowId, requestHash);
    if (replayed) {
      c.header("Idempotent-Replayed", "true");
      return ok(c, replayed, {}, 201);
    }
    return ok(c, await createWorkflow(c.env, p, value, { workflowId, requestHash }), {}, 201);
  })
  .get("/", async (c) => {
    const p = principalOf(c);
    const { data, pagination } = await listWorkflows(c.env.DB, projectOf(p), queryWith(c, ListWorkflowsQuerySchema));
    return ok(c, data, { pagination });
  })
  .get("/:workflowId", async (c) => ok(c, await loadWorkflow(c.env, projectOf(principalOf(c)), c.req.param("workflowId"))))
  .post("/:workflowId/cancel", async (c) => {
    const p = principalOf(c);
    const w = await loadWorkflow(c.env, projectOf(p), c.req.param("workflowId"));
    const r = await workflowStub(c.env, w.workflowId).cancel(actorOf(p).label);
    if (!r.ok || !r.workflow)
      throw conflict(`workflow ${w.workflowId} is ${w.status} and can no longer be cancelled`, [
        { path: "workflowId", issue: `status:${w.status}` },
      ]);
    return ok(c, await loadWorkflow(c.env, projectOf(p), w.workflowId));
  });

/** `/v1/presets`: named workflows saved per project, used by a workflow create or an upload trigger. */
export const presetRoutes = new Hono<AppBindings>()
  .post("/", async (c) => {
    const p = principalOf(c);
    const body = parseWith(PresetBodySchema, (await readJson(c)).value);
    checkPresetSteps(body.steps);
    return ok(c, await insertPreset(getDb(c.env.DB), projectOf(p), newId("preset"), body), {}, 201);
  })
  .get("/", async (c) => ok(c, await listPresets(getDb(c.env.DB), projectOf(principalOf(c)))))
  .get("/:presetId", async (c) =>
    ok(c, await requirePreset(getDb(c.env.DB), projectOf(principalOf(c)), c.req.param("presetId"), "presetId")),
  )
  .put("/:presetId", async (c) => {
    const p = principalOf(c);
    const body = parseWith(PresetBodySchema, (await readJson(c)).value);
    checkPresetSteps(body.steps);
    return ok(c, await replacePreset(getDb(c.env.DB), projectOf(p), c.req.param("presetId"), body));
  })
  .delete("/:presetId", async (c) => {
    const p = principalOf(c);
    const db = getDb(c.env.DB);
    const preset = await requirePreset(db, projectOf(p), c.req.param("presetId"), "presetId");
    const user = await presetInUse(db, projectOf(p), preset.presetId);
    if (user)
      throw conflict(`preset ${preset.presetId} is used by a trigger of storage connection ${user}; remove the trigger first`, [
        { path: "presetId", issue: `inUseBy:${user}` },
      ]);
    await deletePreset(db, projectOf(p), preset.presetId);
    return ok(c, { presetId: preset.presetId, deleted: true });
  });
