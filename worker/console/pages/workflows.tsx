/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Workflow } from "../../../contracts/workflows";
import { Layout, PostButton, StatusBadge, when, type Shell } from "../layout";
import type { Pagination } from "./jobs";

/**
 * The project's workflows (issue 26, docs/api.md "Workflows"): the list, newest first and paged as
 * the API pages it, and a workflow's page with each step, its job and why it did not run.
 */

export interface WorkflowListQuery {
  page: number;
  limit: number;
}

export function readWorkflowListQuery(url: URL): WorkflowListQuery {
  const whole = (v: string | null, dflt: number) => (v && /^\d+$/.test(v) ? Number(v) : dflt);
  return { page: whole(url.searchParams.get("page"), 1), limit: whole(url.searchParams.get("limit"), 20) };
}

export const workflowListSearch = (q: WorkflowListQuery, page = q.page) =>
  new URLSearchParams({ page: String(page), limit: String(q.limit) }).toString();

/** A preset's name where the project still has it, else its id (a deleted preset's workflows keep the id). */
function PresetName(props: { presetId: string | null; names: ReadonlyMap<string, string> }) {
  if (!props.presetId) return <span class="muted">—</span>;
  return <>{props.names.get(props.presetId) ?? <code>{props.presetId}</code>}</>;
}

function TriggerCell({ w }: { w: Workflow }) {
  if (!w.trigger) return <span class="muted">—</span>;
  return (
    <code>
      {w.trigger.bucket}/{w.trigger.key}
    </code>
  );
}

export function WorkflowsPage(props: {
  shell: Shell;
  query: WorkflowListQuery;
  workflows: Workflow[];
  pagination: Pagination | null;
  presetNames: ReadonlyMap<string, string>;
  error?: string | undefined;
}) {
  const { query, workflows, pagination } = props;
  return (
    <Layout title="Workflows" nav="workflows" shell={props.shell} error={props.error}>
      <p>
        Each workflow runs its steps as ordinary jobs, a step's job made when the steps it waits for have completed. Start one from a{" "}
        <a href="/console/presets">preset</a>, an upload trigger of a <a href="/console/connections">storage connection</a>, or{" "}
        <code>POST /v1/workflows</code>.
      </p>
      <div class="table-wrap">
        <table>
          <caption class="muted">{pagination ? `${pagination.total} workflow${pagination.total === 1 ? "" : "s"}` : ""}</caption>
          <thead>
            <tr>
              <th scope="col">Workflow</th>
              <th scope="col">Status</th>
              <th scope="col">Steps</th>
              <th scope="col">Preset</th>
              <th scope="col">Trigger (object)</th>
              <th scope="col">Created (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {workflows.map((w) => (
              <tr data-workflow={w.workflowId}>
                <td>
                  <a href={`/console/workflows/${w.workflowId}`}>
                    <code>{w.workflowId}</code>
                  </a>
                </td>
                <td>
                  <StatusBadge status={w.status} />
                </td>
                <td>{stepCounts(w)}</td>
                <td>
                  <PresetName presetId={w.presetId} names={props.presetNames} />
                </td>
                <td>
                  <TriggerCell w={w} />
                </td>
                <td>{when(w.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {workflows.length === 0 && !props.error ? <p>No workflow yet.</p> : null}
      {pagination && pagination.totalPages > 1 ? (
        <nav class="pager" aria-label="Pages">
          {pagination.page > 1 ? <a href={`/console/workflows?${workflowListSearch(query, pagination.page - 1)}`}>← Previous</a> : null}
          <span>
            Page {pagination.page} of {pagination.totalPages}
          </span>
          {pagination.page < pagination.totalPages ? (
            <a href={`/console/workflows?${workflowListSearch(query, pagination.page + 1)}`}>Next →</a>
          ) : null}
        </nav>
      ) : null}
    </Layout>
  );
}

/** "2 of 3 completed" */
function stepCounts(w: Workflow): string {
  const completed = w.steps.filter((s) => s.status === "completed").length;
  return `${completed} of ${w.steps.length} completed`;
}

export function WorkflowPage(props: {
  shell: Shell;
  workflow: Workflow;
  presetNames: ReadonlyMap<string, string>;
  notice?: string | undefined;
}) {
  const w = props.workflow;
  const csrf = props.shell.session.csrfToken;
  return (
    <Layout title={`Workflow ${w.workflowId}`} nav="workflows" shell={props.shell} notice={props.notice}>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={w.status} />
          {w.error ? (
            <>
              {" "}
              <code>{w.error.code}</code>: {w.error.message}
            </>
          ) : null}
        </dd>
        <dt>Preset</dt>
        <dd>
          <PresetName presetId={w.presetId} names={props.presetNames} />
        </dd>
        <dt>Trigger</dt>
        <dd>
          {w.trigger ? (
            <>
              <TriggerCell w={w} /> ({w.trigger.eventName}, connection <code>{w.trigger.connectionId}</code>)
            </>
          ) : (
            <span class="muted">started by a request</span>
          )}
        </dd>
        {Object.keys(w.variables).length > 0 ? (
          <>
            <dt>Variables</dt>
            <dd>
              {Object.entries(w.variables).map(([k, v]) => (
                <div>
                  <code>{k}</code> = <code>{v}</code>
                </div>
              ))}
            </dd>
          </>
        ) : null}
        <dt>Credits checked</dt>
        <dd>
          {Object.entries(w.credits)
            .map(([meter, n]) => `${meter}: ${n}`)
            .join(", ") || "—"}
        </dd>
        <dt>Created by</dt>
        <dd>{w.createdByLabel}</dd>
        <dt>Created (UTC)</dt>
        <dd>{when(w.createdAt)}</dd>
        <dt>Ended (UTC)</dt>
        <dd>{when(w.endedAt)}</dd>
      </dl>
      {w.status === "running" ? (
        <div class="actions">
          <PostButton
            action={`/console/workflows/${w.workflowId}/cancel`}
            csrf={csrf}
            label="Cancel"
            name={`Cancel workflow ${w.workflowId}`}
            danger
          />
          <span class="muted">Steps still waiting are cancelled at once; running jobs stop after their current stage.</span>
        </div>
      ) : null}
      <h2>Steps</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Service</th>
              <th scope="col">Depends on</th>
              <th scope="col">Status</th>
              <th scope="col">Job</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {w.steps.map((s) => (
              <tr data-step={s.id}>
                <td>
                  <code>{s.id}</code>
                </td>
                <td>{s.serviceType}</td>
                <td>{s.dependsOn.length ? s.dependsOn.join(", ") : <span class="muted">—</span>}</td>
                <td>
                  <StatusBadge status={s.status} />
                </td>
                <td>
                  {s.jobId ? (
                    <a href={`/console/jobs/${s.jobId}`}>
                      <code>{s.jobId}</code>
                    </a>
                  ) : (
                    <span class="muted">{s.status === "waiting" ? "not made yet" : "none"}</span>
                  )}
                </td>
                <td>
                  {s.error ? (
                    <>
                      <code>{s.error.code}</code>: {s.error.message}
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p>
        <a href="/console/workflows">All workflows</a>
      </p>
    </Layout>
  );
}
