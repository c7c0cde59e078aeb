import { DurableObject } from "cloudflare:workers";
import { nowIso } from "../contracts/clock";
import { newId } from "../contracts/ids";
import type { Job, JobError } from "../contracts/job";
import { isTerminal } from "../contracts/service-types";
import { fillTemplates, isWorkflowEnded, valueAt, type Workflow, type WorkflowStatus, type WorkflowStepView } from "../contracts/workflows";
import type { PlannedStep, WorkflowHooks, WorkflowRun } from "./workflow-hooks";
import { isStepEnded as isEndedStep, nextStepStatus, nextWorkflowStatus, stepFollowsJob, type StepTrigger } from "./workflow-state-machine";

/**
 * One workflow (issue 26): its steps' states, and the jobs it makes as their dependencies
 * complete. The Worker's create stores it here; a JobDO that ends tells it (through its hooks);
 * an alarm retries a step whose job could not be made yet and, as a safety net for a lost word,
 * reads the jobs still running. Every call is serial (one at a time), and each is idempotent.
 *
 * Its status and its steps' move only as the tables of workflow-state-machine.ts allow: a cancelled
 * workflow waits in `cancelling` for its running jobs; a step goes waiting → pending (its job
 * reserved and being made) → its job's status, or waiting → skipped | cancelled.
 */

const STATE_KEY = "state";
/** How soon a step whose job could not be made is tried again, and how often. */
const RETRY_MS = 5_000;
const MAX_CREATE_TRIES = 5;
/** How often running jobs are read while the workflow waits for them (their JobDO tells it first). */
const POLL_MS = 60_000;

interface StepState {
  /** Reserved before the job is made, so a make that stopped half-way is finished with the same id. */
  jobId: string | null;
  creating: boolean;
  tries: number;
}

interface WorkflowState {
  workflow: Workflow;
  run: WorkflowRun;
  steps: Record<string, StepState>;
  version: number;
  endedEventSent: boolean;
  /** A job's move was recorded and the steps after it are still to be made (by the alarm). */
  advanceOwed?: boolean;
}

export abstract class WorkflowDurableObject<E extends object = object> extends DurableObject<E> {
  private state: WorkflowState | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  protected abstract hooks(): WorkflowHooks;

  constructor(ctx: DurableObjectState, env: E) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      this.state = (await ctx.storage.get<WorkflowState>(STATE_KEY)) ?? null;
    });
  }

  /** Calls run one at a time: each reads the state the one before left. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Stores the workflow and makes the jobs of the steps that wait for nothing (idempotent: a second call answers the stored one). */
  create(workflow: Workflow, run: WorkflowRun): Promise<Workflow> {
    return this.serial(async () => {
      if (this.state) return this.state.workflow;
      const steps = Object.fromEntries(run.steps.map((s) => [s.id, { jobId: null, creating: false, tries: 0 }]));
      this.state = { workflow, run, steps, version: 0, endedEventSent: false };
      await this.save();
      await this.advance();
      return this.state.workflow;
    });
  }

  async get(): Promise<Workflow | null> {
    return this.state?.workflow ?? null;
  }

  async requestHash(): Promise<string | null> {
    return this.state?.run.requestHash ?? null;
  }

  /** A job of this workflow changed status (its JobDO's end, or the alarm's read): at least once. */
  jobChanged(job: Job): Promise<void> {
    return this.serial(async () => {
      const s = this.state;
      if (!s) return;
      const step = Object.entries(s.steps).find(([, st]) => st.jobId === job.jobId);
      if (!step) return;
      if (!this.applyJob(step[0], job)) return;
      // The next steps are made by the alarm, at once: the job that told us (and the runner whose
      // report ended it) need not wait for their creates.
      s.advanceOwed = true;
      await this.save();
      await this.ctx.storage.setAlarm(Date.now());
    });
  }

  /**
   * Cancels the workflow: waiting steps at once, running jobs through their own cancel. The jobs are
   * asked after this object's turn ends: a job that stops at once tells this object so, and that
   * word must not wait behind the call that caused it.
   */
  async cancel(label: string): Promise<{ ok: boolean; workflow: Workflow | null }> {
    const r = await this.serial(async () => {
      const s = this.state;
      if (!s) return { ok: false, workflow: null, jobs: [] };
      const w = s.workflow;
      const next = nextWorkflowStatus(w.status, "cancel");
      if (!next) return { ok: w.status === "cancelling", workflow: w, jobs: [] };
      w.cancelRequestedAt = nowIso();
      for (const v of w.steps) this.moveStep(v, "workflowCancelled", null);
      w.status = next;
      await this.save();
      await this.advance();
      return { ok: true, workflow: w, jobs: w.steps.filter((v) => v.jobId && !isEndedStep(v.status)).map((v) => v.jobId as string) };
    });
    for (const jobId of r.jobs)
      await this.hooks()
        .cancelJob(jobId, label)
        .catch((err) => logError("cancel", jobId, err));
    return { ok: r.ok, workflow: this.state?.workflow ?? r.workflow };
  }

  /** Forgets the workflow (its project is being deleted, worker/deletion): storage and alarm gone. */
  erase(): Promise<void> {
    return this.serial(async () => {
      this.state = null;
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
    });
  }

  override async alarm(): Promise<void> {
    await this.serial(async () => {
      const s = this.state;
      if (!s) return;
      if (s.advanceOwed) {
        s.advanceOwed = false;
        return this.advance();
      }
      let changed = false;
      for (const v of s.workflow.steps) {
        if (!v.jobId || isEndedStep(v.status) || s.steps[v.id]?.creating) continue;
        const job = await this.hooks()
          .job(v.jobId)
          .catch(() => null);
        if (job && this.applyJob(v.id, job)) changed = true;
      }
      if (changed) await this.save();
      await this.advance();
    });
  }

  // ---- the moves --------------------------------------------------------------------------

  /** Makes every step that can start, skips every step that never will, and ends the workflow when nothing is left. */
  private async advance(): Promise<void> {
    const s = this.state;
    if (!s) return;
    const w = s.workflow;
    let any = false;
    for (let changed = true; changed; any ||= changed) {
      changed = false;
      for (const v of w.steps) {
        if (v.status !== "waiting") continue;
        const deps = v.dependsOn.map((id) => w.steps.find((x) => x.id === id));
        const blocked = deps.find((d) => d && d.status !== "completed" && isEndedStep(d.status));
        if (blocked) {
          this.moveStep(v, "dependencyNotCompleted", {
            code: "dependency_failed",
            message: `not run: step ${blocked.id} ${blocked.status}`,
          });
          changed = true;
        } else if (w.status === "running" && deps.every((d) => d?.status === "completed")) {
          const st = s.steps[v.id] ?? { jobId: null, creating: false, tries: 0 };
          st.jobId ??= newId("job");
          st.creating = true;
          s.steps[v.id] = st;
          this.moveStep(v, "dependenciesCompleted", null);
          changed = true;
        }
      }
    }
    if (any) await this.save();
    let refused = false;
    for (const v of w.steps) if (s.steps[v.id]?.creating) refused = (await this.makeJob(v)) || refused;
    // A step whose job was refused ended: what waits for it is skipped by another pass.
    if (refused) return this.advance();
    await this.finishIfEnded();
    await this.schedule();
  }

  /** Makes a reserved step's job: its dependencies' values filled in, through the ordinary create. Answers whether the step failed. */
  private async makeJob(v: WorkflowStepView): Promise<boolean> {
    const s = this.state as WorkflowState;
    const st = s.steps[v.id] as StepState;
    const jobId = st.jobId as string;
    const existing = await this.hooks()
      .job(jobId)
      .catch(() => null);
    if (existing) {
      await this.made(v, existing);
      return false;
    }
    const planned = s.run.steps.find((p) => p.id === v.id) as PlannedStep;
    const filled = await this.fill(planned);
    if (!filled.ok) {
      st.creating = false;
      this.moveStep(v, "notMade", filled.error);
      await this.save();
      return true;
    }
    st.tries += 1;
    const r = await this.hooks()
      .createStepJob(s.workflow, s.run, v.id, filled.body, jobId)
      .catch((err: unknown) => ({ ok: false as const, error: { code: "step_not_created", message: String(err) }, retry: true }));
    if (r.ok) {
      await this.made(v, r.job);
      return false;
    }
    if (r.retry && st.tries < MAX_CREATE_TRIES) {
      await this.save();
      return false;
    }
    st.creating = false;
    this.moveStep(v, "notMade", r.error);
    await this.save();
    return true;
  }

  private async made(v: WorkflowStepView, job: Job): Promise<void> {
    const s = this.state as WorkflowState;
    const st = s.steps[v.id] as StepState;
    st.creating = false;
    v.jobId = job.jobId;
    v.createdAt = job.createdAt;
    this.applyJob(v.id, job);
    await this.save();
    // A cancel that came while the job was being made reaches it now, after this turn (see cancel).
    if (s.workflow.status === "cancelling" && !isTerminal(job.status))
      void this.hooks()
        .cancelJob(job.jobId, "workflow cancelled")
        .catch((err) => logError("cancel", job.jobId, err));
  }

  /** The step's body with every `{{step.field}}` of its dependencies filled from their jobs. */
  private async fill(p: PlannedStep): Promise<{ ok: true; body: Record<string, unknown> } | { ok: false; error: JobError }> {
    const w = (this.state as WorkflowState).workflow;
    const jobs = new Map<string, Job>();
    for (const id of p.dependsOn) {
      const jobId = w.steps.find((x) => x.id === id)?.jobId;
      const job = jobId ? await this.hooks().job(jobId) : null;
      if (job) jobs.set(id, job);
    }
    let missing: string | null = null;
    const body = fillTemplates(p.body, (root, path) => {
      const job = jobs.get(root);
      if (!job) return undefined;
      const v = path === "jobId" ? job.jobId : (valueAt(job.input, path) ?? valueAt(job.resultSummary, path));
      if (v === undefined || v === null) missing ??= `{{${root}.${path}}}`;
      return v ?? undefined;
    }) as Record<string, unknown>;
    if (missing)
      return {
        ok: false,
        error: { code: "template_unresolved", message: `${missing}: the step's job has no such value in its input or resultSummary` },
      };
    return { ok: true, body };
  }

  /** A job's status onto its step; answers whether anything changed. */
  private applyJob(stepId: string, job: Job): boolean {
    const v = (this.state as WorkflowState).workflow.steps.find((x) => x.id === stepId);
    // An ended step stays as it ended: a late or repeated word about its job changes nothing.
    const next = v ? stepFollowsJob(v.status, job.status) : null;
    if (!v || !next) return false;
    v.jobId = job.jobId;
    this.setStep(v, next, job.status === "failed" ? (job.error ?? { code: "processing_failed", message: "the job failed" }) : null);
    return true;
  }

  /** A step's move by the table (durable-objects/workflow-state-machine.ts); a move not listed for its status is none. */
  private moveStep(v: WorkflowStepView, trigger: StepTrigger, error: JobError | null): void {
    const next = nextStepStatus(v.status, trigger);
    if (next) this.setStep(v, next, error);
  }

  private setStep(v: WorkflowStepView, status: WorkflowStepView["status"], error: JobError | null): void {
    v.status = status;
    v.error = error;
    if (isEndedStep(status)) v.endedAt ??= nowIso();
  }

  private async finishIfEnded(): Promise<void> {
    const s = this.state as WorkflowState;
    const w = s.workflow;
    const allEnded = w.steps.every((v) => isEndedStep(v.status));
    const next = allEnded
      ? nextWorkflowStatus(w.status, w.steps.every((v) => v.status === "completed") ? "allStepsCompleted" : "stepsEndedNotAllCompleted")
      : null;
    if (next) {
      const failed = w.steps.find((v) => v.status === "failed");
      const status: WorkflowStatus = next;
      w.status = status;
      w.endedAt = nowIso();
      w.error =
        status === "failed" && failed
          ? { code: "step_failed", message: `step ${failed.id} failed: ${failed.error?.message ?? "no reason given"}` }
          : null;
      await this.save();
    }
    if (isWorkflowEnded(w.status) && !s.endedEventSent) {
      try {
        await this.hooks().sendEnded(w);
        s.endedEventSent = true;
        await this.ctx.storage.put(STATE_KEY, s);
      } catch (err) {
        logError("webhook", w.workflowId, err);
      }
    }
  }

  /** The next alarm: soon for a job still to be made or an event still to send, later while jobs run, none once all is done. */
  private async schedule(): Promise<void> {
    const s = this.state as WorkflowState;
    const owed = Object.values(s.steps).some((st) => st.creating) || (isWorkflowEnded(s.workflow.status) && !s.endedEventSent);
    const running = s.workflow.steps.some((v) => v.jobId && !isEndedStep(v.status));
    if (owed) await this.ctx.storage.setAlarm(Date.now() + RETRY_MS);
    else if (running) await this.ctx.storage.setAlarm(Date.now() + POLL_MS);
    else await this.ctx.storage.deleteAlarm();
  }

  /** Durable state first, then the D1 mirror (a newer version only). */
  private async save(): Promise<void> {
    const s = this.state as WorkflowState;
    s.version += 1;
    s.workflow.updatedAt = nowIso();
    await this.ctx.storage.put(STATE_KEY, s);
    await this.hooks()
      .mirror(s.workflow, s.version, s.run.triggerKey)
      .catch((err) => logError("mirror", s.workflow.workflowId, err));
  }
}

function logError(what: string, id: string | null, err: unknown): void {
  console.error(JSON.stringify({ level: "error", msg: `workflow: ${what} failed`, id, error: String(err) }));
}

/** The WorkflowDO's RPC surface, as the class declares it (see worker/jobs/stubs.ts for why the stub is viewed so). */
export type WorkflowRpc = Pick<WorkflowDurableObject, "create" | "get" | "requestHash" | "jobChanged" | "cancel" | "erase">;
