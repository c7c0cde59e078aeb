/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { Csrf, Layout, PostButton, when, type Shell } from "../layout";
import type { Connection } from "./submit";

/** A connection's event secret, answered once by the API: shown on the page that made it, never again. */
export interface EventSecretReveal {
  connectionName: string;
  secret: string;
  /** The absolute URL of the connection's events endpoint, on this service's origin. */
  eventsUrl: string;
}

/** A preset a trigger may start (the page's preset select). */
export interface PresetChoice {
  presetId: string;
  name: string;
}

export interface ConnectionTest {
  name: string;
  results: Array<{ bucket: string; ok: boolean; message: string }>;
}

export function ConnectionsPage(props: {
  shell: Shell;
  connections: Connection[];
  test?: ConnectionTest | undefined;
  /** The project's presets, or null when the session may not read them. */
  presets: PresetChoice[] | null;
  eventSecret?: EventSecretReveal | undefined;
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
      {props.eventSecret ? <EventSecretNotice reveal={props.eventSecret} /> : null}
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
      {props.connections.length > 0 ? (
        <>
          <h2>Upload triggers</h2>
          <p class="muted">
            When an object lands under a trigger's prefix, the trigger's <a href="/console/presets">preset</a> runs as a workflow for it,
            once per object version. The store sends its event notifications to the connection's events URL, signed with the connection's
            event secret (made when its first triggers are set, shown once).
          </p>
          {props.connections.map((c) => (
            <ConnectionTriggers connection={c} presets={props.presets} csrf={csrf} />
          ))}
        </>
      ) : null}
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

function presetName(presets: PresetChoice[] | null, presetId: string) {
  return presets?.find((p) => p.presetId === presetId)?.name ?? presetId;
}

function ConnectionTriggers(props: { connection: Connection; presets: PresetChoice[] | null; csrf: string }) {
  const c = props.connection;
  const base = `/console/connections/${c.connectionId}`;
  return (
    <section aria-labelledby={`triggers-${c.connectionId}`} data-triggers={c.connectionId}>
      <h3 id={`triggers-${c.connectionId}`}>{c.name}</h3>
      {c.triggers.length ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Bucket</th>
                <th scope="col">Prefix</th>
                <th scope="col">Suffixes</th>
                <th scope="col">Preset</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="muted">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {c.triggers.map((t) => (
                <tr>
                  <td>{t.bucket}</td>
                  <td>
                    <code>{t.prefix || "(whole bucket)"}</code>
                  </td>
                  <td>{t.suffixes?.length ? t.suffixes.join(", ") : <span class="muted">any</span>}</td>
                  <td>{presetName(props.presets, t.presetId)}</td>
                  <td>{t.enabled ? "enabled" : "disabled"}</td>
                  <td>
                    <PostButton
                      action={`${base}/triggers/remove`}
                      csrf={props.csrf}
                      fields={{ bucket: t.bucket, prefix: t.prefix, presetId: t.presetId }}
                      label="Remove"
                      name={`Remove the trigger on ${t.bucket}/${t.prefix} of ${c.name}`}
                      danger
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p class="muted">No trigger.</p>
      )}
      <p class="muted">
        Events URL path: <code>{c.eventsPath}</code>
      </p>
      {c.status !== "active" ? (
        <p class="muted">An inactive connection starts no workflow.</p>
      ) : props.presets === null ? (
        <p class="muted">This session may not read presets, so it cannot set triggers.</p>
      ) : props.presets.length === 0 ? (
        <p class="muted">
          Make a <a href="/console/presets">preset</a> first: a trigger starts one.
        </p>
      ) : (
        <>
          <form method="post" action={`${base}/triggers`}>
            <Csrf token={props.csrf} />
            <div class="grid">
              <div>
                <label for={`t-bucket-${c.connectionId}`}>Bucket</label>
                <select id={`t-bucket-${c.connectionId}`} name="bucket">
                  {c.buckets.map((b) => (
                    <option value={b}>{b}</option>
                  ))}
                </select>
              </div>
              <div>
                <label for={`t-prefix-${c.connectionId}`}>Prefix</label>
                <input id={`t-prefix-${c.connectionId}`} name="prefix" type="text" maxlength={512} placeholder="uploads/" />
              </div>
              <div>
                <label for={`t-suffixes-${c.connectionId}`}>Suffixes (comma-separated, optional)</label>
                <input id={`t-suffixes-${c.connectionId}`} name="suffixes" type="text" placeholder=".mp4, .mov" />
              </div>
              <div>
                <label for={`t-preset-${c.connectionId}`}>Preset</label>
                <select id={`t-preset-${c.connectionId}`} name="presetId">
                  {props.presets.map((p) => (
                    <option value={p.presetId}>{p.name}</option>
                  ))}
                </select>
              </div>
            </div>
            <p>
              <button type="submit" aria-label={`Add a trigger to ${c.name}`}>
                Add trigger
              </button>
            </p>
          </form>
          {c.triggers.length ? (
            <PostButton
              action={`${base}/event-secret`}
              csrf={props.csrf}
              label="Make a new event secret"
              name={`Make a new event secret for ${c.name} (the old one stops working at once)`}
              danger
            />
          ) : null}
        </>
      )}
    </section>
  );
}

function EventSecretNotice({ reveal }: { reveal: EventSecretReveal }) {
  const minio = [
    `mc admin config set myminio notify_webhook:media-jobs endpoint="${reveal.eventsUrl}" auth_token="${reveal.secret}"`,
    "mc admin service restart myminio",
    "mc event add myminio/<bucket> arn:minio:sqs::media-jobs:webhook --event put --prefix <prefix>",
  ].join("\n");
  return (
    <div class="notice" role="status">
      <p>
        The event secret of <strong>{reveal.connectionName}</strong>. Copy it now: it is shown only once.
      </p>
      <p class="secret" id="event-secret">
        {reveal.secret}
      </p>
      <p>
        Send the store's event notifications to <code id="events-url">{reveal.eventsUrl}</code> with{" "}
        <code>{"Authorization: Bearer <secret>"}</code>, or sign each body as <code>{"X-Media-Jobs-Signature: sha256=<hex HMAC>"}</code>.
        MinIO, for example:
      </p>
      <pre>{minio}</pre>
    </div>
  );
}
