/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { JOB_STATUSES, SERVICE_TYPES } from "../../../contracts/service-types";
import type { Job } from "../../../contracts/job";
import { Layout, StatusBadge, when, type Shell } from "../layout";

/** The query parameters of GET /v1/jobs, as the console's filter form names them (docs/api.md "GET /v1/jobs"). */
export const JOB_LIST_TEXT_FILTERS = ["jobId", "customerJobRef", "user", "input"] as const;
export const JOB_LIST_SORTS = ["created", "jobId", "service", "status", "user"] as const;

export interface JobListQuery {
  text: Partial<Record<(typeof JOB_LIST_TEXT_FILTERS)[number], string>>;
  statuses: string[];
  serviceTypes: string[];
  sort: string;
  sortDir: "asc" | "desc";
  page: number;
  limit: number;
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

/** The page's query string → the list's filters. Statuses and service types come as repeated checkboxes (or one CSV). */
export function readJobListQuery(url: URL): JobListQuery {
  const q = url.searchParams;
  const many = (name: string) =>
    q
      .getAll(name)
      .flatMap((v) => v.split(","))
      .map((v) => v.trim())
      .filter(Boolean);
  const text: JobListQuery["text"] = {};
  for (const k of JOB_LIST_TEXT_FILTERS) {
    const v = q.get(k)?.trim();
    if (v) text[k] = v;
  }
  const whole = (v: string | null, dflt: number) => (v && /^\d+$/.test(v) ? Number(v) : dflt);
  return {
    text,
    statuses: many("statuses"),
    serviceTypes: many("serviceTypes"),
    sort: q.get("sort") || "created",
    sortDir: q.get("sortDir") === "asc" ? "asc" : "desc",
    page: whole(q.get("page"), 1),
    limit: whole(q.get("limit"), 20),
  };
}

/** The same filters as a query string: for GET /v1/jobs (CSV lists) and for the pager's links. */
export function jobListSearch(q: JobListQuery, page = q.page): string {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(q.text)) if (v) out.set(k, v);
  if (q.statuses.length) out.set("statuses", q.statuses.join(","));
  if (q.serviceTypes.length) out.set("serviceTypes", q.serviceTypes.join(","));
  out.set("sort", q.sort);
  out.set("sortDir", q.sortDir);
  out.set("page", String(page));
  out.set("limit", String(q.limit));
  return out.toString();
}

const LABELS: Record<(typeof JOB_LIST_TEXT_FILTERS)[number], string> = {
  jobId: "Job id contains",
  customerJobRef: "Customer job ref (exact)",
  user: "Created by contains",
  input: "Input contains (bucket, key, name)",
};

export function JobsPage(props: {
  shell: Shell;
  query: JobListQuery;
  jobs: Job[];
  pagination: Pagination | null;
  error?: string | undefined;
}) {
  const { query, jobs, pagination } = props;
  return (
    <Layout title="Jobs" nav="jobs" shell={props.shell} error={props.error}>
      <form method="get" action="/console/jobs" class="filters" aria-label="Filter and sort jobs">
        <div class="grid">
          {JOB_LIST_TEXT_FILTERS.map((k) => (
            <div>
              <label for={`f-${k}`}>{LABELS[k]}</label>
              <input id={`f-${k}`} name={k} type="search" value={query.text[k] ?? ""} />
            </div>
          ))}
        </div>
        <fieldset class="inline">
          <legend>Status</legend>
          {JOB_STATUSES.map((s) => (
            <label>
              <input type="checkbox" name="statuses" value={s} checked={query.statuses.includes(s)} /> {s}
            </label>
          ))}
        </fieldset>
        <fieldset class="inline">
          <legend>Service</legend>
          {SERVICE_TYPES.map((s) => (
            <label>
              <input type="checkbox" name="serviceTypes" value={s} checked={query.serviceTypes.includes(s)} /> {s}
            </label>
          ))}
        </fieldset>
        <div class="grid">
          <div>
            <label for="f-sort">Sort by</label>
            <select id="f-sort" name="sort">
              {JOB_LIST_SORTS.map((s) => (
                <option value={s} selected={query.sort === s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="f-dir">Direction</label>
            <select id="f-dir" name="sortDir">
              <option value="desc" selected={query.sortDir === "desc"}>
                descending
              </option>
              <option value="asc" selected={query.sortDir === "asc"}>
                ascending
              </option>
            </select>
          </div>
          <div>
            <label for="f-limit">Per page</label>
            <select id="f-limit" name="limit">
              {[10, 20, 50, 100].map((n) => (
                <option value={String(n)} selected={query.limit === n}>
                  {n}
                </option>
              ))}
            </select>
          </div>
        </div>
        <p class="actions">
          <button type="submit">Apply</button>
          <a href="/console/jobs">Clear filters</a>
        </p>
      </form>
      <div class="table-wrap">
        <table>
          <caption class="muted">{pagination ? `${pagination.total} job${pagination.total === 1 ? "" : "s"}` : ""}</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Service</th>
              <th scope="col">Status</th>
              <th scope="col">Source</th>
              <th scope="col">Created by</th>
              <th scope="col">Created (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr>
                <td>
                  <a href={`/console/jobs/${j.jobId}`}>
                    <code>{j.jobId}</code>
                  </a>
                </td>
                <td>{j.serviceType}</td>
                <td>
                  <StatusBadge status={j.status} />
                </td>
                <td>{j.sourceDisplayName ?? sourceOf(j)}</td>
                <td>{j.createdByLabel}</td>
                <td>{when(j.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {jobs.length === 0 ? <p>No jobs match these filters.</p> : null}
      {pagination && pagination.totalPages > 1 ? (
        <nav class="pager" aria-label="Pages">
          {pagination.page > 1 ? <a href={`/console/jobs?${jobListSearch(query, pagination.page - 1)}`}>← Previous</a> : null}
          <span>
            Page {pagination.page} of {pagination.totalPages}
          </span>
          {pagination.page < pagination.totalPages ? (
            <a href={`/console/jobs?${jobListSearch(query, pagination.page + 1)}`}>Next →</a>
          ) : null}
        </nav>
      ) : null}
    </Layout>
  );
}

function sourceOf(j: Job): string {
  const i = j.input;
  if (typeof i["bucket"] === "string" && typeof i["sourceKey"] === "string") return `s3://${i["bucket"]}/${i["sourceKey"]}`;
  return typeof i["textSourceId"] === "string" ? i["textSourceId"] : "—";
}
