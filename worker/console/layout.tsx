/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import type { SessionView } from "./api";

/** The nav entries, in the order of the brief's pages. `key` marks the current page. */
export const NAV = [
  { key: "projects", href: "/console/projects", label: "Projects" },
  { key: "jobs", href: "/console/jobs", label: "Jobs" },
  { key: "submit", href: "/console/submit", label: "Submit a job" },
  { key: "workflows", href: "/console/workflows", label: "Workflows" },
  { key: "presets", href: "/console/presets", label: "Presets" },
  { key: "catalog", href: "/console/catalog", label: "Catalog" },
  { key: "keys", href: "/console/keys", label: "API keys" },
  { key: "connections", href: "/console/connections", label: "Storage" },
  { key: "usage", href: "/console/usage", label: "Usage" },
  { key: "data", href: "/console/data", label: "Your data" },
] as const;
export type NavKey = (typeof NAV)[number]["key"];

export interface Shell {
  session: SessionView;
  projects: Array<{ projectId: string; name: string }>;
  /** The page's path and query, so the project switcher and sign-out come back to it. */
  here: string;
}

/** A hidden field with the session's CSRF token: every form that changes state carries it. */
export const Csrf = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

/**
 * A one-button form that posts an action (revoke, deactivate, replay, remove, switch): the CSRF
 * token, any hidden fields, and a button whose accessible name says what it acts on.
 */
export function PostButton(props: {
  action: string;
  csrf: string;
  label: string;
  name: string;
  danger?: boolean;
  fields?: Record<string, string>;
}) {
  return (
    <form method="post" action={props.action}>
      <Csrf token={props.csrf} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" {...(props.danger ? { class: "danger" } : {})} aria-label={props.name}>
        {props.label}
      </button>
    </form>
  );
}

/** The header cell over a column of row actions: named for screen readers, empty on screen. */
export const ActionsHeader = () => (
  <th scope="col">
    <span class="visually-hidden">Actions</span>
  </th>
);

export function Document(props: { title: string; children: Child; scripts?: string[]; csrf?: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* The app-wide Referrer-Policy is no-referrer, under which a browser sends `Origin: null` on a form
            post or fetch, and the API's same-origin check refuses it; same-origin still sends nothing elsewhere. */}
        <meta name="referrer" content="same-origin" />
        {props.csrf ? <meta name="csrf-token" content={props.csrf} /> : null}
        <title>{`${props.title} · media-jobs console`}</title>
        <link rel="stylesheet" href="/console/assets/console.css" />
        {(props.scripts ?? []).map((s) => (
          <script src={`/console/assets/${s}`} defer></script>
        ))}
      </head>
      <body>{props.children}</body>
    </html>
  );
}

export function Flash(props: { notice?: string | undefined; error?: string | undefined }) {
  return (
    <>
      {props.notice ? (
        <p class="notice" role="status">
          {props.notice}
        </p>
      ) : null}
      {props.error ? (
        <p class="error" role="alert">
          {props.error}
        </p>
      ) : null}
    </>
  );
}

export function Layout(props: {
  title: string;
  nav?: NavKey;
  shell: Shell;
  children: Child;
  scripts?: string[];
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const { session, projects, here } = props.shell;
  return (
    <Document title={props.title} csrf={session.csrfToken} {...(props.scripts ? { scripts: props.scripts } : {})}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/console/jobs">
          media-jobs
        </a>
        <nav class="main" aria-label="Console">
          <ul>
            {NAV.map((n) => (
              <li>
                <a href={n.href} aria-current={props.nav === n.key ? "page" : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <form method="post" action="/console/project">
            <Csrf token={session.csrfToken} />
            <input type="hidden" name="back" value={here} />
            <label for="project-switch">Project</label>
            <select id="project-switch" name="projectId">
              {projects.map((p) => (
                <option value={p.projectId} selected={p.projectId === session.project?.projectId}>
                  {p.name}
                </option>
              ))}
            </select>
            <button type="submit" class="secondary">
              Switch
            </button>
          </form>
          <a href="/console/account" aria-label={`Your account (${session.user.email})`}>
            {session.user.email}
          </a>
          <form method="post" action="/console/sign-out">
            <Csrf token={session.csrfToken} />
            <button type="submit" class="secondary">
              Sign out
            </button>
          </form>
        </div>
      </header>
      <main id="main" tabindex={-1}>
        <h1>{props.title}</h1>
        <Flash notice={props.notice} error={props.error} />
        {props.children}
      </main>
    </Document>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge s-${status}`}>{status}</span>;
}

/** `2026-11-20T10:15:00.123Z` → `2026-11-20 10:15:00` (UTC is said once, in the column heading). */
export function when(iso: string | null | undefined): string {
  return iso ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "") : "—";
}

export function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
