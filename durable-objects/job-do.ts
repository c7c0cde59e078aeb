import { DurableObject } from "cloudflare:workers";
import type { AttemptHistoryEntry, Job, JobError, JobProgressView, ProgressEntry } from "../contracts/job";
import type { StepSpec } from "../contracts/pipelines";
import { NON_RETRYABLE_CODES } from "../contracts/runner-protocol";
import { isTerminal, type ActorKind, type JobStatus } from "../contracts/service-types";
import { randomToken } from "../contracts/ids";
import { jobSnapshot, type WebhookMessage } from "./messages";
import { completeTask, dropAvailableTasks, enqueueTask, enqueueTaskStatement, expireTask, extendTask, failTask } from "./runner-lane";
import type { JobEnv } from "./env";
import type { JobHooks } from "./hooks";
import { laneSignal } from "./lane-signal";
import { insertJobRow, mirrorJobRow } from "./job-mirror";
import { nextStatus, type Trigger } from "./job-state-machine";
import { exponentialStep } from "../contracts/retry";
import { nowIso } from "../contracts/clock";

/**
 * JobDO — one instance per job, the authority for that job.
 *
 * Responsibilities:
 * - the status state machine (transitions only through `job-state-machine.ts`);
 * - the cancel flag (`cancelling`) that runners learn of on heartbeat and stage events;
 * - attempts, retries with backoff, `attemptHistory[]` and stage `progress[]`;
 * - the runner lease (token + expiry) and the alarm that expires it (`runner_lost`);
 * - mirroring the public Job into D1 inside the same call, so reads after a write see it, through
 *   one D1 session whose bookmark it hands back to the Worker (a client's next read, with that
 *   bookmark, sees the mirror even on a read replica);
 * - one webhook event per status change, handed to the queue from a bounded outbox: a send the
 *   queue refuses is retried with backoff a bounded number of times, then recorded as a failed
 *   delivery (the JobHooks), and the alarm stops;
 * - the outputs steps hand to later steps, and the scratch artifacts to delete when the job ends.
 *
 * It knows no service: results, settings and end-of-job work go through `JobHooks`, which the
 * Worker supplies by subclassing (worker/index.ts exports `JobDO`).
 *
 * Queues deliver at least once and runners may repeat calls: every method checks the attempt,
 * step and lease token it is given against the stored state, so a duplicate changes nothing.
 */

interface Lease {
  taskId: string;
  token: string;
  until: string;
  runnerId: string;
  /**
   * The runner token (`rnt_`) the task was claimed with: every later call about it must come with
   * the same token. Null for in-Worker steps (their calls carry none).
   */
  runnerTokenId: string | null;
  attempt: number;
  stepIndex: number;
  /** Lease length at the claim; every extension uses it, so a heartbeat costs no settings read. */
  seconds: number;
}

interface JobState {
  job: Job;
  version: number;
  progress: ProgressEntry[];
  attemptHistory: AttemptHistoryEntry[];
  steps: StepSpec[];
  stepIndex: number;
  lease: Lease | null;
  /**
   * Leases (`taskId token runnerTokenId`: a released task keeps its id when leased again) whose final report
   * (complete, fail, cancelled, release) was accepted: a runner retrying that report after a lost
   * answer gets ok again, with no second side effect.
   */
  finishedTasks: string[];
  /** Webhook events not yet handed to the queue, oldest first; flushed after each change and by the alarm. */
  outbox: OutboxEntry[];
  /** Result fields gathered step by step; published as `resultSummary` only on completion. */
  summary: Record<string, unknown>;
  /** Each finished step's output, by step name: what later steps receive. Kept across attempts. */
  outputs: Record<string, Record<string, unknown>>;
  /** Scratch objects steps wrote; deleted when the job ends. */
  artifacts: string[];
  webhookSeq: number;
  /** The Job as last mirrored, without its clocks: `updatedAt` moves only when this changes. */
  mirrored: string;
  /**
   * Set while the job's first D1 rows are not written yet (its row and, for a first step that goes
   * straight to a runner, that step's lane row): what the alarm needs to write them if the create
   * stopped before it could. Absent on states stored before it existed (they were written).
   */
  entry?: { search: JobSearch } | null;
  /**
   * The first step's message that the create owes the dispatch queue (a step that does not go
   * straight to a runner): sent by the alarm, due at once after the create, and again until the
   * queue takes it. Stored with the job, so a crash cannot lose it; the consumer ignores a repeat.
   */
  dispatchOwed?: { dueAt: number } | null;
}

/** The job's flattened search columns, written with its first row. */
export interface JobSearch {
  userSearch: string;
  inputSearch: string;
}

/** A webhook event waiting for the queue, with the sends tried so far. */
interface OutboxEntry {
  message: WebhookMessage;
  /** Failed sends so far. */
  tries: number;
  /** When the next send is due (epoch ms). */
  dueAt: number;
  lastError: string | null;
}

export interface Actor {
  label: string;
  kind: ActorKind;
  userId: string | null;
  apiKeyId: string | null;
}

export type LeaseCheck<T> = { ok: true; value: T } | { ok: false; reason: "leaseLost" | "conflict" | "protocolError"; message: string };

/** What a step is given when it starts: the job, its step, and the outputs of the steps before it. */
export interface StepStart {
  job: Job;
  step: StepSpec;
  attempt: number;
  outputs: Record<string, Record<string, unknown>>;
}

export type DispatchOutcome =
  | { action: "none"; reason: string }
  | { action: "runner_task"; taskId: string }
  | ({ action: "run_in_worker"; taskId: string; token: string } & StepStart);

/** What `create` answers: the job, how long its parts took (ms, by part), and a D1 bookmark that covers its row. */
export interface CreateOutcome {
  job: Job;
  timings: Record<string, number>;
  bookmark: string | null;
}

/** The JobDO's RPC surface. Every method is async and returns plain data. */
export type JobRpc = Pick<
  JobDurableObject,
  | "create"
  | "get"
  | "getProgress"
  | "cancel"
  | "dispatch"
  | "leaseStarted"
  | "heartbeat"
  | "leaseHolder"
  | "recordEvents"
  | "completeStep"
  | "failStep"
  | "ackCancelled"
  | "release"
  | "dispatchDeadLettered"
  | "erase"
>;

const STATE_KEY = "state";
/** At most this many events wait for the queue; to make room, the oldest is given up (and recorded). */
export const MAX_OUTBOX_EVENTS = 32;
/** Sends of one event the queue may refuse before it is given up: 5 s, 10 s … 5 min apart, about 10 min in all. */
export const MAX_OUTBOX_SENDS = 8;
const OUTBOX_RETRY_BASE_MS = 5_000;
const OUTBOX_RETRY_MAX_MS = 5 * 60_000;
/**
 * Queues refuse a message over 128 KB (128,000 bytes): an event this large is given up at once rather
 * than retried. Events carry no job input (queues/messages.ts), so only an outsized result or error could get here.
 */
export const MAX_WEBHOOK_MESSAGE_BYTES = 120_000;
const LEASE_LOST = "lease lost; stop work on this task";
const PENDING_RETRY_MS = 5_000;
/** Largest output one step may hand to the next through the DO; bigger artifacts go by object key. */
export const MAX_STEP_OUTPUT_BYTES = 32 * 1024;

/** The Job's fields that tell a client something changed (the lease clock is bookkeeping). */
const changeKey = (job: Job): string => JSON.stringify({ ...job, updatedAt: null, processingLeaseUntil: null });

export abstract class JobDurableObject<E extends JobEnv = JobEnv> extends DurableObject<E> {
  private state: JobState | null = null;
  /** The object's D1 session for the mirror: its bookmark after a write covers that write (docs/deploy.md, "Read replication"). */
  private mirrorSession: D1DatabaseSession | null = null;
  /** The outbox flush under way: one at a time, so two never send the same head (see flushOutbox). */
  private flushing: Promise<void> | null = null;

  /** The services, as the Worker wires them. */
  protected abstract hooks(): JobHooks;

  constructor(ctx: DurableObjectState, env: E) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const stored = (await ctx.storage.get<JobState>(STATE_KEY)) ?? null;
      if (stored) stored.outbox = stored.outbox.map(outboxEntry);
      this.state = stored;
    });
  }

  // ---- creation and reads -------------------------------------------------------------------

  /**
   * Creates the job (idempotent: a second call returns the stored job) and puts it on the queue.
   * `timings` are its parts in ms, for the create's Server-Timing header.
   */
  async create(job: Job, steps: StepSpec[], search: JobSearch): Promise<CreateOutcome> {
    // No other call runs until the job is stored and queued: a runner woken by the lane waits for
    // this answer, which is therefore the job as it entered the queue (queued).
    return this.ctx.blockConcurrencyWhile(() => this.createJob(job, steps, search));
  }

  /**
   * The job is `queued` as it is stored. A first step that goes straight to a runner enters its
   * lane in the same D1 batch as the job's row (one round trip); any other first step's dispatch
   * message is owed to the queue (`dispatchOwed`) and sent by the alarm. The `queued` webhook event
   * waits in the outbox for that alarm (due at once) too, instead of holding the answer. The state,
   * with what is still to be written (`entry`) and the alarm that writes it, is stored first: a
   * create that stops before its batch is finished by the alarm, so a queued job is never missing
   * from its lane or its queue.
   */
  private async createJob(job: Job, steps: StepSpec[], search: JobSearch): Promise<CreateOutcome> {
    if (this.state) return { job: this.state.job, timings: {}, bookmark: this.mirror().getBookmark() };
    const timings: Record<string, number> = {};
    const timed = async (name: string, work: () => Promise<void>) => {
      const started = performance.now();
      await work();
      timings[name] = performance.now() - started;
    };
    this.state = {
      job,
      version: 1,
      progress: [],
      attemptHistory: [],
      steps,
      stepIndex: 0,
      lease: null,
      finishedTasks: [],
      outbox: [],
      summary: {},
      outputs: {},
      artifacts: [],
      webhookSeq: 0,
      mirrored: changeKey(job),
      entry: { search },
    };
    const state = this.state;
    if (steps[0]?.executor !== "runner") state.dispatchOwed = { dueAt: Date.now() };
    const to = nextStatus(job.status, "enqueued");
    if (!to) throw new Error(`illegal transition enqueued from ${job.status}`);
    job.status = to;
    await this.stage(true);
    await timed("put", async () => {
      await this.ctx.storage.put(STATE_KEY, state);
      // Only the retry of `entry` for now: the outbox's alarm is not due while this call holds the object.
      await this.ctx.storage.setAlarm(Date.now() + PENDING_RETRY_MS);
    });
    await timed("insert", () => this.enter());
    await this.scheduleAlarm();
    return { job: structuredClone(state.job), timings, bookmark: this.mirror().getBookmark() };
  }

  /**
   * Writes the job's first D1 rows (`entry`): its row, and the lane row of a runner step it was
   * queued for, in one batch (idempotent both). Then wakes a waiting runner, without holding the
   * caller: a lost signal costs a runner one wait, never a task (the lane row is durable).
   */
  private async enter(): Promise<void> {
    const s = this.mustState();
    if (!s.entry) return;
    const db = this.mirror();
    const step = s.steps[s.stepIndex];
    const laneStep = s.job.status === "queued" && step?.executor === "runner" ? step : null;
    const statements = [insertJobRow(db, s.job, s.version, s.entry.search)];
    if (laneStep) statements.push(enqueueTaskStatement(db, this.laneTask(laneStep.handler)));
    await db.batch(statements);
    s.entry = null;
    await this.ctx.storage.put(STATE_KEY, s);
    if (laneStep) this.ctx.waitUntil(this.signalLane());
  }

  private laneTask(handler: string) {
    const s = this.mustState();
    return { jobId: s.job.jobId, attempt: s.job.attemptCount, stepIndex: s.stepIndex, handler, lane: s.job.priority };
  }

  /** The create's dispatch message, to the queue; on a refusal it is tried again by the alarm. */
  private async sendOwedDispatch(): Promise<void> {
    const s = this.mustState();
    // A job cancelled (or failed) before its message went needs none.
    if (s.job.status !== "queued") s.dispatchOwed = null;
    else {
      try {
        await this.env.DISPATCH_QUEUE.send({ jobId: s.job.jobId, attempt: s.job.attemptCount, stepIndex: s.stepIndex });
        s.dispatchOwed = null;
      } catch (err) {
        console.error(JSON.stringify({ level: "warn", msg: "dispatch enqueue failed", jobId: s.job.jobId, error: String(err) }));
        s.dispatchOwed = { dueAt: Date.now() + PENDING_RETRY_MS };
      }
    }
    await this.ctx.storage.put(STATE_KEY, s);
  }

  private async signalLane(): Promise<void> {
    // A lost signal only costs a waiting runner one wait.
    await laneSignal(this.env.LANE)
      .notify()
      .catch(() => undefined);
  }

  private mirror(): D1DatabaseSession {
    // `first-primary`: the mirror only writes, and writes go to the primary; the bookmark after each covers it.
    this.mirrorSession ??= this.env.DB.withSession("first-primary");
    return this.mirrorSession;
  }

  async get(): Promise<Job | null> {
    return this.state?.job ?? null;
  }

  async getProgress(): Promise<JobProgressView | null> {
    if (!this.state) return null;
    return { progress: this.state.progress, currentStage: this.state.job.currentStage, attemptHistory: this.state.attemptHistory };
  }

  // ---- deletion -------------------------------------------------------------------------------

  /**
   * A finished job's deletion (worker/deletion/): its state and alarm leave the object's storage.
   * Refused while the job is not finished (the caller answers 409). Answers the scratch keys its
   * steps reported, for the caller to delete from the job's bucket. Erasing an erased job is a no-op.
   */
  async erase(): Promise<{ erased: true; artifacts: string[] } | { erased: false; status: JobStatus }> {
    const s = this.state;
    if (s && !isTerminal(s.job.status)) return { erased: false, status: s.job.status };
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.state = null;
    return { erased: true, artifacts: s?.artifacts ?? [] };
  }

  // ---- cancel ---------------------------------------------------------------------------------

  /** `bookmark`: a D1 bookmark that covers the cancel's mirror write, for the client's next read. */
  async cancel(actor: Actor): Promise<{ ok: true; job: Job; bookmark: string | null } | { ok: false; status: JobStatus }> {
    const s = this.mustState();
    const from = s.job.status;
    const to = nextStatus(from, "cancel");
    if (!to) return { ok: false, status: from };
    if (from === "cancelling" || from === "cancelled") return { ok: true, job: s.job, bookmark: this.mirror().getBookmark() };
    const now = nowIso();
    Object.assign(s.job, {
      cancelRequestedAt: now,
      cancelRequestedByLabel: actor.label,
      cancelRequestedByKind: actor.kind,
      cancelRequestedByUserId: actor.userId,
      cancelRequestedByApiKeyId: actor.apiKeyId,
      cancelMode: "graceful",
    });
    if (to === "cancelled") await dropAvailableTasks(this.env.DB, s.job.jobId);
    await this.transition("cancel");
    // Between two steps nothing is running to reach a stage boundary: this is the boundary.
    if (s.job.status === "cancelling" && !s.lease) await this.cancelBetweenSteps();
    return { ok: true, job: s.job, bookmark: this.mirror().getBookmark() };
  }

  // ---- dispatch (queue consumer) ---------------------------------------------------------------

  /** Called by the dispatch consumer. Turns "run this step" into runner work or in-Worker work. */
  async dispatch(attempt: number, stepIndex: number): Promise<DispatchOutcome> {
    const s = this.state;
    if (!s) return { action: "none", reason: "unknown job" };
    if (s.job.status === "pending") await this.transition("enqueued");
    if (s.job.status === "cancelling" && !s.lease) await this.cancelBetweenSteps();
    if (s.job.status !== "queued" && s.job.status !== "processing") return { action: "none", reason: `job is ${s.job.status}` };
    if (attempt !== s.job.attemptCount || stepIndex !== s.stepIndex) return { action: "none", reason: "stale dispatch message" };
    if (s.lease) return { action: "none", reason: "step already running" };
    const step = s.steps[stepIndex];
    if (!step) return { action: "none", reason: "no such step" };
    if (step.executor === "runner") return { action: "runner_task", taskId: await this.putInLane(step) };
    // In-Worker steps hold a lease like a runner does, so a consumer that dies is noticed too.
    const taskId = `wrk_${s.job.jobId}_${attempt}_${stepIndex}`;
    const token = randomToken(24);
    const settings = await this.hooks().settings();
    await this.beginLease({
      taskId,
      token,
      runnerId: "queue-consumer",
      runnerTokenId: null,
      attempt,
      stepIndex,
      seconds: settings.runner.leaseSeconds,
    });
    return { action: "run_in_worker", taskId, token, step, job: s.job, attempt, outputs: s.outputs };
  }

  /**
   * The dispatch queue dead-lettered "run step `stepIndex` of attempt `attempt`" after `deliveries`
   * tries. If the job still waits on exactly that message (same attempt and step, no lease), nothing
   * else would start the step: a runner step is put in its lane from here (what the dispatch would
   * have done; idempotent), an in-Worker step cannot run without the queue, so the job fails
   * `processing_failed`. A stale or repeated message changes nothing.
   */
  async dispatchDeadLettered(attempt: number, stepIndex: number, deliveries: number): Promise<{ outcome: "stale" | "laned" | "failed" }> {
    const s = this.state;
    if (!s || attempt !== s.job.attemptCount || stepIndex !== s.stepIndex || s.lease) return { outcome: "stale" };
    if (s.job.status !== "pending" && s.job.status !== "queued" && s.job.status !== "cancelling") return { outcome: "stale" };
    const step = s.steps[stepIndex];
    if (step?.executor === "runner" && s.job.status !== "cancelling") {
      if (s.job.status === "pending") await this.transition("enqueued");
      await this.putInLane(step);
      return { outcome: "laned" };
    }
    const message = `step ${stepIndex + 1} could not be started: its dispatch message was given up after ${deliveries} deliveries`;
    s.job.lastError = { at: nowIso(), message };
    if (s.job.status !== "cancelling") s.job.error = { code: "processing_failed", message };
    await dropAvailableTasks(this.env.DB, s.job.jobId);
    await this.transition("dispatchAbandoned");
    return { outcome: "failed" };
  }

  // ---- runner lease protocol -------------------------------------------------------------------

  /** A runner claimed the task row in D1; bind the lease here. Refused if the task is stale. */
  async leaseStarted(claim: {
    taskId: string;
    token: string;
    runnerId: string;
    runnerTokenId: string;
    attempt: number;
    stepIndex: number;
  }): Promise<LeaseCheck<StepStart & { leaseUntil: string }>> {
    const s = this.state;
    if (!s) return { ok: false, reason: "conflict", message: "unknown job" };
    const stale =
      (s.job.status !== "queued" && s.job.status !== "processing") ||
      claim.attempt !== s.job.attemptCount ||
      claim.stepIndex !== s.stepIndex ||
      (s.lease !== null && s.lease.taskId !== claim.taskId);
    if (stale) return { ok: false, reason: "conflict", message: "task is no longer current" };
    const settings = await this.hooks().settings();
    const lease = await this.beginLease({ ...claim, seconds: settings.runner.leaseSeconds });
    const step = s.steps[s.stepIndex] as StepSpec;
    return { ok: true, value: { job: s.job, step, attempt: claim.attempt, outputs: s.outputs, leaseUntil: lease.until } };
  }

  async heartbeat(
    taskId: string,
    token: string,
    runnerTokenId: string | null = null,
  ): Promise<LeaseCheck<{ leaseUntil: string; cancelRequested: boolean }>> {
    const renewed = await this.renewLease(taskId, token, runnerTokenId);
    if (!renewed.ok) return renewed;
    const { state: s, lease } = renewed.value;
    return { ok: true, value: { leaseUntil: lease.until, cancelRequested: s.job.status === "cancelling" } };
  }

  /**
   * The job and step a lease is for, to the lease holder only: the runner's data calls (reading the
   * job's transcripts, writing the catalog) go through it. A call is a sign of life like a heartbeat.
   */
  async leaseHolder(
    taskId: string,
    token: string,
    runnerTokenId: string | null = null,
  ): Promise<LeaseCheck<{ job: Job; step: StepSpec; attempt: number }>> {
    const renewed = await this.renewLease(taskId, token, runnerTokenId);
    if (!renewed.ok) return renewed;
    const { state: s, lease } = renewed.value;
    return { ok: true, value: { job: s.job, step: s.steps[lease.stepIndex] as StepSpec, attempt: lease.attempt } };
  }

  async recordEvents(
    taskId: string,
    token: string,
    events: Array<Omit<ProgressEntry, "at"> & { at?: string }>,
    runnerTokenId: string | null = null,
  ): Promise<LeaseCheck<{ cancelRequested: boolean }>> {
    const s = this.state;
    const lease = this.leaseFor(taskId, token, runnerTokenId);
    if (!s || !lease) return { ok: false, reason: "leaseLost", message: LEASE_LOST };
    const step = s.steps[lease.stepIndex] as StepSpec;
    const unknown = events.find((e) => !step.stages.includes(e.stage));
    if (unknown)
      return {
        ok: false,
        reason: "protocolError",
        message: `stage ${unknown.stage} is not a stage of step ${step.name} (${step.stages.join(", ")}); no event of this report was recorded`,
      };
    // Any report is a sign of life: it extends the lease like a heartbeat (in-Worker steps rely on it).
    this.extendLease(lease);
    for (const e of events) {
      // A runner retrying a report whose answer was lost sends the same entry again.
      const last = s.progress[s.progress.length - 1];
      if (e.at && last && last.at === e.at && last.stage === e.stage && last.event === e.event) continue;
      const entry: ProgressEntry = { ...e, at: e.at ?? nowIso() };
      s.progress.push(entry);
      if (e.event === "started") s.job.currentStage = e.stage;
      else if (s.job.currentStage === e.stage) s.job.currentStage = null;
    }
    await this.persist(false);
    await this.scheduleAlarm();
    return { ok: true, value: { cancelRequested: s.job.status === "cancelling" } };
  }

  async completeStep(
    taskId: string,
    token: string,
    result: Record<string, unknown>,
    runnerTokenId: string | null = null,
  ): Promise<LeaseCheck<{ status: JobStatus }>> {
    return this.finalReport(taskId, token, runnerTokenId, "done", async (s) => {
      const step = s.steps[s.stepIndex] as StepSpec;
      if (s.job.status === "cancelling") return this.transition("stageBoundaryCancel");
      const applied = await this.hooks().applyStepResult(s.job, step, result);
      if (!applied.ok) return this.failAttempt(applied.error, false);
      if (applied.artifacts) s.artifacts.push(...applied.artifacts);
      const output = applied.output ?? {};
      const outputBytes = JSON.stringify(output).length;
      if (outputBytes > MAX_STEP_OUTPUT_BYTES) {
        return this.failAttempt(
          {
            code: "processing_failed",
            message: `step ${step.name} output is ${outputBytes} bytes (at most ${MAX_STEP_OUTPUT_BYTES}); pass large artifacts by object key`,
          },
          false,
        );
      }
      s.outputs[step.name] = output;
      s.summary = { ...s.summary, ...applied.summary };
      if (s.stepIndex + 1 < s.steps.length) {
        s.stepIndex += 1;
        await this.transition("stepSucceeded");
        await this.enqueueCurrentStep(0);
        return;
      }
      s.job.resultSummary = s.summary;
      s.job.error = null;
      s.job.lastError = null;
      await this.transition("lastStepSucceeded");
    });
  }

  async failStep(
    taskId: string,
    token: string,
    error: JobError & { retryable: boolean },
    runnerTokenId: string | null = null,
  ): Promise<LeaseCheck<{ status: JobStatus }>> {
    return this.finalReport(taskId, token, runnerTokenId, "dead", () =>
      this.failAttempt({ code: error.code, message: error.message }, error.retryable),
    );
  }

  /** The runner stopped after a stage because a cancel was requested. */
  async ackCancelled(taskId: string, token: string, runnerTokenId: string | null = null): Promise<LeaseCheck<{ status: JobStatus }>> {
    return this.finalReport(taskId, token, runnerTokenId, "dead", async (s) => {
      if (s.job.status === "cancelling") await this.transition("stageBoundaryCancel");
      else await this.persist(false);
    });
  }

  /** A runner shutting down gives the task back: same attempt, back to its lane, no failure counted. */
  async release(taskId: string, token: string, runnerTokenId: string | null = null): Promise<LeaseCheck<{ status: JobStatus }>> {
    return this.finalReport(taskId, token, runnerTokenId, "dead", async (s) => {
      await this.transition("released");
      if (s.job.status === "queued") await this.enqueueCurrentStep(0);
    });
  }

  /**
   * The shared frame of the four final reports: a repeat of an accepted report is answered ok,
   * a report without the current lease is refused, otherwise the lease ends and `apply` runs.
   */
  private async finalReport(
    taskId: string,
    token: string,
    runnerTokenId: string | null,
    taskState: "done" | "dead",
    apply: (s: JobState) => Promise<void>,
  ): Promise<LeaseCheck<{ status: JobStatus }>> {
    const s = this.state;
    // The runner token is part of the key: a repeat is answered ok only to the token that made the report.
    const leaseKey = `${taskId} ${token} ${runnerTokenId ?? "-"}`;
    if (s?.finishedTasks.includes(leaseKey)) return { ok: true, value: { status: s.job.status } };
    if (!s || !this.leaseFor(taskId, token, runnerTokenId))
      return { ok: false, reason: "leaseLost", message: "lease lost; stop work on this task (the report was not accepted)" };
    this.finish(leaseKey);
    if (taskId.startsWith("rtk_")) await (taskState === "done" ? completeTask : failTask)(this.env.DB, taskId);
    s.lease = null;
    s.job.processingLeaseUntil = null;
    s.job.currentStage = null;
    await apply(s);
    return { ok: true, value: { status: s.job.status } };
  }

  // ---- time --------------------------------------------------------------------------------------

  override async alarm(): Promise<void> {
    const s = this.state;
    if (!s) return;
    // A create that stopped before its first D1 rows were written: they are written now.
    if (s.entry) await this.enter();
    const now = Date.now();
    // Due or not (the alarm may have come for something else first): an owed message sent early is only sooner.
    if (s.dispatchOwed) await this.sendOwedDispatch();
    if (s.lease && Date.parse(s.lease.until) <= now) {
      const lost = s.lease;
      s.lease = null;
      if (lost.taskId.startsWith("rtk_")) await expireTask(this.env.DB, lost.taskId);
      await this.failAttempt(
        { code: "runner_lost", message: `runner ${lost.runnerId} stopped heartbeating; its lease expired at ${lost.until}` },
        true,
      );
    }
    if (s.job.status === "pending") await this.enqueueCurrentStep(0);
    // The alarm was set for the outbox's next send (or fired earlier for a lease): a try now.
    if (s.outbox.length > 0) await this.flushOutbox(true);
    await this.scheduleAlarm();
  }

  // ---- internals ---------------------------------------------------------------------------------

  private mustState(): JobState {
    if (!this.state) throw new Error("job state missing");
    return this.state;
  }

  /** A sign of life from the lease holder: the lease (and its lane row) extended, persisted, the alarm moved. */
  private async renewLease(
    taskId: string,
    token: string,
    runnerTokenId: string | null,
  ): Promise<LeaseCheck<{ state: JobState; lease: Lease }>> {
    const s = this.state;
    const lease = this.leaseFor(taskId, token, runnerTokenId);
    if (!s || !lease) return { ok: false, reason: "leaseLost", message: LEASE_LOST };
    this.extendLease(lease);
    if (lease.taskId.startsWith("rtk_")) await extendTask(this.env.DB, lease.taskId, lease.until);
    await this.persist(false);
    await this.scheduleAlarm();
    return { ok: true, value: { state: s, lease } };
  }

  /** The current lease, if these are its task, its token and the runner token it was claimed with, and it has not run out. */
  private leaseFor(taskId: string, token: string, runnerTokenId: string | null): Lease | null {
    const lease = this.state?.lease;
    if (!lease || lease.taskId !== taskId || lease.token !== token) return null;
    // `?? null`: a lease stored before runner tokens existed carries none.
    if ((lease.runnerTokenId ?? null) !== runnerTokenId) return null;
    if (Date.parse(lease.until) <= Date.now()) return null;
    return lease;
  }

  private extendLease(lease: Lease): void {
    lease.until = new Date(Date.now() + lease.seconds * 1000).toISOString();
    this.mustState().job.processingLeaseUntil = lease.until;
  }

  private async beginLease(claim: Omit<Lease, "until">): Promise<Lease> {
    const s = this.mustState();
    const lease: Lease = { ...claim, until: new Date(Date.now() + claim.seconds * 1000).toISOString() };
    s.lease = lease;
    s.job.processingLeaseUntil = lease.until;
    if (!s.job.startedAt) s.job.startedAt = nowIso();
    if (s.job.status === "queued") await this.transition("started");
    else await this.persist(false);
    await this.scheduleAlarm();
    return lease;
  }

  private async failAttempt(error: JobError, retryable: boolean): Promise<void> {
    const s = this.mustState();
    const now = nowIso();
    s.lease = null;
    s.job.processingLeaseUntil = null;
    s.job.currentStage = null;
    s.job.lastError = { at: now, message: error.message };
    if (s.job.status === "cancelling") {
      await this.transition("stageBoundaryCancel");
      return;
    }
    const settings = await this.hooks().settings();
    const canRetry = retryable && !NON_RETRYABLE_CODES.has(error.code) && s.job.attemptCount + 1 < settings.retry.maxAttempts;
    if (canRetry) {
      s.attemptHistory.push({ attempt: s.job.attemptCount, failedAt: now, error, progress: s.progress });
      s.progress = [];
      s.job.attemptCount += 1;
      // A lost runner is no fault of the work: resume it promptly instead of backing off.
      const delay =
        error.code === "runner_lost"
          ? settings.retry.runnerLostDelaySeconds
          : exponentialStep(s.job.attemptCount, settings.retry.baseDelaySeconds, settings.retry.maxDelaySeconds);
      await this.transition("attemptFailedRetry");
      await this.enqueueCurrentStep(delay);
      return;
    }
    s.job.error = error;
    await this.transition("attemptFailedFinal");
  }

  /** The current step as a row in the runner lane (idempotent), and a wake-up for long-polling runners. */
  private async putInLane(step: StepSpec): Promise<string> {
    const taskId = await enqueueTask(this.env.DB, this.laneTask(step.handler));
    await this.signalLane();
    return taskId;
  }

  /**
   * Starts the current step: a runner step due now goes straight into the runner lane; a Worker step,
   * or any step after a retry backoff, goes through the dispatch queue (whose consumer runs Worker
   * steps and delays messages). Both paths are idempotent, so a duplicate start changes nothing.
   */
  private async enqueueCurrentStep(delaySeconds: number): Promise<void> {
    const s = this.mustState();
    const step = s.steps[s.stepIndex];
    try {
      if (delaySeconds <= 0 && step?.executor === "runner") await this.putInLane(step);
      else {
        await this.env.DISPATCH_QUEUE.send(
          { jobId: s.job.jobId, attempt: s.job.attemptCount, stepIndex: s.stepIndex },
          delaySeconds > 0 ? { delaySeconds: Math.ceil(delaySeconds) } : undefined,
        );
      }
      if (s.job.status === "pending") await this.transition("enqueued");
    } catch (err) {
      // Stays pending (or queued); the alarm tries again shortly.
      console.error(JSON.stringify({ level: "warn", msg: "dispatch enqueue failed", jobId: s.job.jobId, error: String(err) }));
      await this.persist(false);
      await this.ctx.storage.setAlarm(Date.now() + PENDING_RETRY_MS);
    }
  }

  /**
   * A cancel that found the job between two steps (the last one done, the next not yet started):
   * the next step must not run, so the job ends here, as it would at a stage boundary.
   */
  private async cancelBetweenSteps(): Promise<void> {
    await dropAvailableTasks(this.env.DB, this.mustState().job.jobId);
    await this.transition("stageBoundaryCancel");
  }

  private async transition(trigger: Trigger): Promise<void> {
    const s = this.mustState();
    const from = s.job.status;
    const to = nextStatus(from, trigger);
    if (!to) throw new Error(`illegal transition ${trigger} from ${from}`);
    s.job.status = to;
    if (isTerminal(to)) {
      s.job.completedAt = s.job.completedAt ?? nowIso();
      s.job.currentStage = null;
      s.job.processingLeaseUntil = null;
      s.lease = null;
      if (to !== "completed") s.job.resultSummary = null;
      if (to !== "failed") s.job.error = null;
    }
    await this.persist(from !== to);
    if (isTerminal(to) && from !== to) await this.hooks().jobEnded(s.job, s.artifacts);
    await this.scheduleAlarm();
  }

  /** Durable state first, then the D1 mirror, then the webhook: each awaited before answering. */
  private async persist(statusChanged: boolean): Promise<void> {
    const s = this.mustState();
    await this.stage(statusChanged);
    await this.ctx.storage.put(STATE_KEY, s);
    await mirrorJobRow(this.mirror(), s.job, s.version);
    if (s.outbox.length > 0) await this.flushOutbox(false);
  }

  /** A change in memory: the next version, `updatedAt` when the public Job changed, and its webhook event in the outbox. */
  private async stage(statusChanged: boolean): Promise<void> {
    const s = this.mustState();
    const notify = statusChanged && s.job.status !== "pending";
    s.version += 1;
    const key = changeKey(s.job);
    if (key !== s.mirrored) {
      s.mirrored = key;
      s.job.updatedAt = nowIso();
    }
    if (notify) s.webhookSeq += 1;
    if (notify) {
      s.outbox.push({
        message: {
          eventId: `msg_${s.job.jobId}_${s.webhookSeq}`,
          jobId: s.job.jobId,
          projectId: s.job.projectId,
          event: s.job.status,
          job: jobSnapshot(s.job),
          occurredAt: s.job.updatedAt,
        },
        tries: 0,
        dueAt: Date.now(),
        lastError: null,
      });
      while (s.outbox.length > MAX_OUTBOX_EVENTS) {
        const oldest = s.outbox.shift() as OutboxEntry;
        await this.giveUp(oldest, `dropped unsent: ${MAX_OUTBOX_EVENTS} newer events of the job were waiting for the webhook queue`);
      }
    }
  }

  /**
   * Hands waiting webhook events to the queue in order. A refused send is tried again when it is due
   * (backing off), up to MAX_OUTBOX_SENDS in all; then, like an event too large for any queue
   * message, it is given up: recorded as a failed delivery with the reason, and the next one goes.
   * `force`: the alarm's try, due or not (the alarm is set for the head's due time).
   *
   * One flush at a time: the alarm's and a change's could otherwise both send the head while it
   * waits for the queue, and both take it off, dropping the event after it. A flush called during
   * another waits for it, then looks again.
   */
  private async flushOutbox(force: boolean): Promise<void> {
    // Another flush's failure is its caller's: this one only waits for it to end.
    while (this.flushing) await this.flushing.catch(() => undefined);
    this.flushing = this.flushOnce(force).finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async flushOnce(force: boolean): Promise<void> {
    const s = this.mustState();
    const head = s.outbox[0];
    if (!head || (!force && head.dueAt > Date.now())) return;
    while (s.outbox.length > 0) {
      const entry = s.outbox[0] as OutboxEntry;
      const bytes = new TextEncoder().encode(JSON.stringify(entry.message)).byteLength;
      if (bytes > MAX_WEBHOOK_MESSAGE_BYTES) {
        s.outbox.shift();
        await this.giveUp(entry, `the event is ${bytes} bytes; a webhook queue message holds at most 128 KB`);
        continue;
      }
      try {
        await this.env.WEBHOOK_QUEUE.send(entry.message);
        s.outbox.shift();
      } catch (err) {
        entry.tries += 1;
        entry.lastError = err instanceof Error ? err.message : String(err);
        if (entry.tries >= MAX_OUTBOX_SENDS) {
          s.outbox.shift();
          await this.giveUp(entry, `the webhook queue refused the event ${entry.tries} times; the last answer: ${entry.lastError}`);
          continue;
        }
        entry.dueAt = Date.now() + exponentialStep(entry.tries, OUTBOX_RETRY_BASE_MS, OUTBOX_RETRY_MAX_MS);
        console.error(
          JSON.stringify({
            level: "warn",
            msg: "webhook enqueue failed; will retry",
            jobId: s.job.jobId,
            tries: entry.tries,
            error: entry.lastError,
          }),
        );
        break;
      }
    }
    await this.ctx.storage.put(STATE_KEY, s);
    await this.scheduleAlarm();
  }

  /** An event that will never reach the queue: recorded as a failed delivery, so the deliveries list says why. */
  private async giveUp(entry: OutboxEntry, reason: string): Promise<void> {
    try {
      await this.hooks().webhookUndeliverable(entry.message, reason);
    } catch (err) {
      // Bounded either way: the event is not kept for another try.
      console.error(
        JSON.stringify({ level: "error", msg: "webhook event given up unrecorded", eventId: entry.message.eventId, error: String(err) }),
      );
    }
  }

  private finish(leaseKey: string): void {
    const s = this.mustState();
    s.finishedTasks.push(leaseKey);
    // Bounded: only the most recent tasks can still be retried by a runner.
    if (s.finishedTasks.length > 50) s.finishedTasks.splice(0, s.finishedTasks.length - 50);
  }

  /** One alarm for whatever comes first: the lease's expiry, the outbox's next send, a pending job's next enqueue try, a create's unwritten rows or owed dispatch. */
  private async scheduleAlarm(): Promise<void> {
    const s = this.mustState();
    const due: number[] = [];
    if (s.lease) due.push(Date.parse(s.lease.until) + 250);
    if (s.entry) due.push(Date.now() + PENDING_RETRY_MS);
    if (s.dispatchOwed) due.push(s.dispatchOwed.dueAt);
    if (s.outbox[0]) due.push(s.outbox[0].dueAt);
    if (s.job.status === "pending") due.push(Date.now() + PENDING_RETRY_MS);
    if (due.length > 0) await this.ctx.storage.setAlarm(Math.min(...due));
    else await this.ctx.storage.deleteAlarm();
  }
}

/** An outbox entry as stored; one written before entries carried their tries is taken as untried (its job input dropped). */
function outboxEntry(stored: OutboxEntry | (WebhookMessage & { job: Job })): OutboxEntry {
  if ("message" in stored) return stored;
  return { message: { ...stored, job: jobSnapshot(stored.job) }, tries: 0, dueAt: 0, lastError: null };
}
