/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { Csrf, Layout, PostButton, when, type Shell } from "../layout";

export interface KeyView {
  apiKeyId: string;
  name: string;
  prefix: string;
  permissions: string[];
  createdAt: string;
  revokedAt: string | null;
}

export function KeysPage(props: {
  shell: Shell;
  keys: KeyView[];
  created?: { name: string; secret: string } | undefined;
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const csrf = props.shell.session.csrfToken;
  const admin = props.shell.session.user.role === "admin";
  const project = props.shell.session.project;
  return (
    <Layout title="API keys" nav="keys" shell={props.shell} notice={props.notice} error={props.error}>
      <p>
        Project keys (<code>sk_prj_…</code>) of <strong>{project?.name ?? "no project"}</strong>: each can submit and read this project's
        jobs.
      </p>
      {props.created ? (
        <div class="notice" role="status">
          <p>
            Key <strong>{props.created.name}</strong> created. Copy its secret now: it is shown only once.
          </p>
          <p class="secret" id="new-secret">
            {props.created.secret}
          </p>
        </div>
      ) : null}
      {admin && project ? (
        <form method="post" action="/console/keys">
          <Csrf token={csrf} />
          <label for="k-name">New key name</label>
          <input id="k-name" name="name" type="text" required maxlength={120} placeholder="ingest-bot" />
          <p>
            <button type="submit">Create key</button>
          </p>
        </form>
      ) : (
        <p class="muted">Only a workspace admin can create or revoke keys.</p>
      )}
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Created (UTC)</th>
              <th scope="col">State</th>
              <th scope="col">
                <span class="muted">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.keys.map((k) => (
              <tr data-key={k.apiKeyId}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>{when(k.createdAt)}</td>
                <td>{k.revokedAt ? `revoked ${when(k.revokedAt)}` : "active"}</td>
                <td>
                  {admin && !k.revokedAt ? (
                    <PostButton
                      action={`/console/keys/${k.apiKeyId}/revoke`}
                      csrf={csrf}
                      label="Revoke"
                      name={`Revoke key ${k.name}`}
                      danger
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {props.keys.length === 0 ? <p>This project has no keys yet.</p> : null}
    </Layout>
  );
}
