/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { AttemptHistoryEntry, Job, ProgressEntry } from "../../../contracts/job";
import { isTerminal } from "../../../contracts/service-types";
import { ActionsHeader, Csrf, Layout, PostButton, seconds, StatusBadge, when, type Shell } from "../layout";

export interface Progress {
  progress: ProgressEntry[];
  currentStage: string | null;
  attemptHistory: AttemptHistoryEntry[];
}

export interface Delivery {
  deliveryId: string;
  eventId: string;
  event: string;
  url: string;
  attempt: number;
  outcome: string;
  responseStatus: number | null;
  error: string | null;
  durationMs: number | null;
  nextRetryAt: string | null;
  at: string;
}

/** One row of the timeline: a stage run from its `started` event to the event that ended it. */
export interface StageRow {
  stage: string;
  startedAt: string | null;
  endedAt: string | null;
  outcome: "started" | "completed" | "failed" | "skipped";
  durationMs: number | null;
  details?: Record<string, unknown>;
  error?: { code: string; message: string };
}

/**
 * Progress entries → stage rows. A stage may run more than once (chunks); each `started` opens a row
 * that the next end event of the same stage closes. Entries are delivered at least once, so an
 * exact repeat of the previous event of a stage is ignored.
 */
export function stageRows(entries: ProgressEntry[]): StageRow[] {
  const rows: StageRow[] = [];
  const open = new Map<string, StageRow>();
  const last = new Map<string, string>();
  for (const e of entries) {
    const sig = `${e.event}@${e.at}`;
    if (last.get(e.stage) === sig) continue;
    last.set(e.stage, sig);
    const extra = { ...(e.details ? { details: e.details } : {}), ...(e.error ? { error: e.error } : {}) };
    if (e.event === "started") {
      const row: StageRow = { stage: e.stage, startedAt: e.at, endedAt: null, outcome: "started", durationMs: null, ...extra };
      rows.push(row);
      open.set(e.stage, row);
      continue;
    }
    const row = open.get(e.stage);
    if (row) {
      open.delete(e.stage);
      Object.assign(row, { endedAt: e.at, outcome: e.event, durationMs: Date.parse(e.at) - Date.parse(row.startedAt ?? e.at) }, extra);
      if (e.details && row.details) row.details = { ...row.details, ...e.details };
    } else {
      rows.push({ stage: e.stage, startedAt: null, endedAt: e.at, outcome: e.event, durationMs: null, ...extra });
    }
  }
  return rows;
}

function Timeline({ entries, now }: { entries: ProgressEntry[]; now: number }) {
  const rows = stageRows(entries);
  if (rows.length === 0) return <p class="muted">No stage has been reported yet.</p>;
  return (
    <ol class="timeline">
      {rows.map((r) => (
        <li class={`e-${r.outcome}`} data-stage={r.stage} data-outcome={r.outcome}>
          <strong>{r.stage}</strong> <span class="muted">{r.outcome}</span>
          {r.durationMs !== null ? <span> · {seconds(r.durationMs)}</span> : null}
          {r.outcome === "started" && r.startedAt ? (
            <span> · running for {seconds(Math.max(0, now - Date.parse(r.startedAt)))}</span>
          ) : null}
          <span class="muted"> · {when(r.startedAt ?? r.endedAt)}</span>
          {r.details && Object.keys(r.details).length ? (
            <div>
              <code>{JSON.stringify(r.details)}</code>
            </div>
          ) : null}
          {r.error ? (
            <div class="error">
              <code>{r.error.code}</code>: {r.error.message}
            </div>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

function Value({ v }: { v: unknown }) {
  if (v === null || v === undefined) return <>—</>;
  if (typeof v === "object") return <code>{JSON.stringify(v)}</code>;
  return <>{String(v)}</>;
}

/** Links from a job to what it made, where the console has a page for it. */
function resultLinks(job: Job): Array<{ href: string; label: string }> {
  const out: Array<{ href: string; label: string }> = [];
  const txt = (job.resultSummary?.["textSourceId"] ?? job.input["textSourceId"]) as unknown;
  if (typeof txt === "string") out.push({ href: `/console/transcripts/${txt}`, label: "Open the transcript" });
  const clips = job.resultSummary?.["clipGenerationId"];
  if (typeof clips === "string") out.push({ href: `/console/clips/${clips}`, label: "Play the clips" });
  const summary = job.resultSummary?.["summarizationId"];
  if (typeof summary === "string") out.push({ href: `/console/summaries/${summary}`, label: "Read the summary" });
  const dubbing = job.resultSummary?.["dubbingId"];
  if (typeof dubbing === "string") out.push({ href: `/console/dubbings/${dubbing}`, label: "Play the dubbed video" });
  const language = job.resultSummary?.["languageKey"];
  if (job.serviceType === "translation" && typeof txt === "string" && typeof language === "string")
    out.push({ href: `/console/transcripts/${txt}/translations/${encodeURIComponent(language)}`, label: "Read the translation" });
  return out;
}

/** The part of the job page the script refreshes: status, result, the stage timeline, earlier attempts. */
export function LivePanel({ job, progress, now }: { job: Job; progress: Progress | null; now: number }) {
  const terminal = isTerminal(job.status);
  return (
    <div data-terminal={terminal ? "true" : "false"}>
      <dl class="facts">
        <dt>Status</dt>
        <dd role="status">
          <StatusBadge status={job.status} />
          {progress?.currentStage ? <span> · now: {progress.currentStage}</span> : null}
        </dd>
        <dt>Started (UTC)</dt>
        <dd>{when(job.startedAt)}</dd>
        <dt>Ended (UTC)</dt>
        <dd>{when(job.completedAt)}</dd>
        <dt>Failed attempts</dt>
        <dd>{job.attemptCount}</dd>
        {job.lastError ? (
          <>
            <dt>Last error</dt>
            <dd>
              {when(job.lastError.at)}: {job.lastError.message}
            </dd>
          </>
        ) : null}
        {job.error ? (
          <>
            <dt>Error</dt>
            <dd class="error">
              <code>{job.error.code}</code>: {job.error.message}
            </dd>
          </>
        ) : null}
      </dl>
      {job.resultSummary ? (
        <>
          <h2>Result</h2>
          <dl class="facts">
            {Object.entries(job.resultSummary).map(([k, v]) => (
              <>
                <dt>{k}</dt>
                <dd>
                  <Value v={v} />
                </dd>
              </>
            ))}
          </dl>
        </>
      ) : null}
      <ul>
        {resultLinks(job).map((l) => (
          <li>
            <a href={l.href}>{l.label}</a>
          </li>
        ))}
      </ul>
      <h2>Stages</h2>
      {progress ? <Timeline entries={progress.progress} now={now} /> : <p class="muted">The stage timeline could not be read.</p>}
      {progress && progress.attemptHistory.length > 0 ? (
        <>
          <h2>Earlier attempts</h2>
          {progress.attemptHistory.map((a) => (
            <details>
              <summary>
                Attempt {a.attempt}, failed {when(a.failedAt)}: <code>{a.error.code}</code> {a.error.message}
              </summary>
              <Timeline entries={a.progress} now={now} />
            </details>
          ))}
        </>
      ) : null}
    </div>
  );
}

export function JobPage(props: {
  shell: Shell;
  job: Job;
  progress: Progress | null;
  deliveries: Delivery[];
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const { job, shell } = props;
  const csrf = shell.session.csrfToken;
  return (
    <Layout title={`Job ${job.jobId}`} nav="jobs" shell={shell} scripts={["job-live.js"]} notice={props.notice} error={props.error}>
      <dl class="facts">
        <dt>Service</dt>
        <dd>{job.serviceType}</dd>
        <dt>Created (UTC)</dt>
        <dd>
          {when(job.createdAt)} by {job.createdByLabel} ({job.createdByKind})
        </dd>
        <dt>Priority</dt>
        <dd>{job.priority}</dd>
      </dl>
      {!isTerminal(job.status) && job.status !== "cancelling" ? (
        <form method="post" action={`/console/jobs/${job.jobId}/cancel`} class="actions" id="cancel-form">
          <Csrf token={csrf} />
          <button type="submit" class="danger">
            Cancel this job
          </button>
        </form>
      ) : null}
      <section id="live" aria-label="Live status" data-src={`/console/jobs/${job.jobId}/live`} data-every="500">
        <LivePanel job={job} progress={props.progress} now={Date.now()} />
      </section>
      <details>
        <summary>Input</summary>
        <pre>{JSON.stringify(job.input, null, 2)}</pre>
      </details>
      <h2>Webhook deliveries</h2>
      {props.deliveries.length === 0 ? (
        <p class="muted">No delivery was attempted (no webhook URL on the job or the project, or the job has not ended).</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">When (UTC)</th>
                <th scope="col">Event</th>
                <th scope="col">Attempt</th>
                <th scope="col">Outcome</th>
                <th scope="col">HTTP</th>
                <th scope="col">Duration</th>
                <th scope="col">URL</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {props.deliveries.map((d) => (
                <tr>
                  <td>{when(d.at)}</td>
                  <td>{d.event}</td>
                  <td>{d.attempt}</td>
                  <td>
                    {d.outcome}
                    {d.error ? <div class="muted">{d.error}</div> : null}
                    {d.nextRetryAt ? <div class="muted">next retry {when(d.nextRetryAt)}</div> : null}
                  </td>
                  <td>{d.responseStatus ?? "—"}</td>
                  <td>{d.durationMs !== null ? seconds(d.durationMs) : "—"}</td>
                  <td>
                    <code>{d.url}</code>
                  </td>
                  <td>
                    {d.event === job.status && isTerminal(job.status) ? (
                      <PostButton
                        action={`/console/jobs/${job.jobId}/deliveries/${d.deliveryId}/replay`}
                        csrf={csrf}
                        label="Replay"
                        name={`Re-send the ${d.event} event (attempt ${d.attempt})`}
                      />
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}
