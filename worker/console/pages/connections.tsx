/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { Csrf, Layout, PostButton, when, type Shell } from "../layout";
import type { Connection } from "./submit";

export interface ConnectionTest {
  name: string;
  results: Array<{ bucket: string; ok: boolean; message: string }>;
}

export function ConnectionsPage(props: {
  shell: Shell;
  connections: Connection[];
  test?: ConnectionTest | undefined;
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const csrf = props.shell.session.csrfToken;
  return (
    <Layout title="Storage connections" nav="connections" shell={props.shell} notice={props.notice} error={props.error}>
      {props.test ? (
        <div class={props.test.results.every((r) => r.ok) ? "notice" : "error"} role="status">
          <p>Test of {props.test.name}:</p>
          <ul>
            {props.test.results.map((r) => (
              <li>
                {r.bucket}: {r.ok ? "ok" : "failed"}, {r.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Endpoint</th>
              <th scope="col">Buckets</th>
              <th scope="col">Status</th>
              <th scope="col">Created (UTC)</th>
              <th scope="col">
                <span class="muted">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.connections.map((c) => (
              <tr>
                <td>
                  {c.name}
                  <div class="muted">
                    <code>{c.connectionId}</code>
                  </div>
                </td>
                <td>
                  <code>{c.endpoint}</code> ({c.region})
                </td>
                <td>{c.buckets.join(", ")}</td>
                <td>{c.status}</td>
                <td>{when(c.createdAt)}</td>
                <td class="actions">
                  <form method="post" action={`/console/connections/${c.connectionId}/test`}>
                    <Csrf token={csrf} />
                    <button type="submit" class="secondary" aria-label={`Test ${c.name}`}>
                      Test
                    </button>
                  </form>
                  {c.status === "active" ? (
                    <PostButton
                      action={`/console/connections/${c.connectionId}/deactivate`}
                      csrf={csrf}
                      label="Deactivate"
                      name={`Deactivate ${c.name}`}
                      danger
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {props.connections.length === 0 ? <p>No storage connection yet.</p> : null}
      <h2>Add a connection</h2>
      <form method="post" action="/console/connections">
        <Csrf token={csrf} />
        <div class="grid">
          <div>
            <label for="c-name">Name</label>
            <input id="c-name" name="name" type="text" required maxlength={120} />
          </div>
          <div>
            <label for="c-endpoint">Endpoint (https URL)</label>
            <input id="c-endpoint" name="endpoint" type="url" required placeholder="https://<account>.r2.cloudflarestorage.com" />
          </div>
          <div>
            <label for="c-region">Region</label>
            <input id="c-region" name="region" type="text" placeholder="us-east-1" />
          </div>
          <div>
            <label for="c-buckets">Buckets (comma-separated)</label>
            <input id="c-buckets" name="buckets" type="text" required />
          </div>
          <div>
            <label for="c-akid">Access key id</label>
            <input id="c-akid" name="accessKeyId" type="text" required autocomplete="off" />
          </div>
          <div>
            <label for="c-secret">Secret access key</label>
            <input id="c-secret" name="secretAccessKey" type="password" required autocomplete="off" />
          </div>
        </div>
        <p class="muted">
          The credentials are checked against every bucket before the connection is saved; the secret is never shown again.
        </p>
        <p>
          <button type="submit">Add connection</button>
        </p>
      </form>
    </Layout>
  );
}
