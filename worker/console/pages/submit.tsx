/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { StoredTrigger } from "../../../contracts/triggers";
import { Csrf, Layout, type Shell } from "../layout";

export interface Connection {
  connectionId: string;
  name: string;
  endpoint: string;
  region: string;
  buckets: string[];
  accessKeyId: string;
  defaultOutputPrefix: string;
  status: "active" | "inactive";
  /** Upload triggers (docs/api.md "Trigger on upload") and the path the store's event notifications go to. */
  triggers: StoredTrigger[];
  eventsPath: string;
  createdAt: string;
}

export interface SubmitForm {
  connectionId?: string;
  bucket?: string;
  sourceKey?: string;
  language?: string;
  raw?: string;
}

export const RAW_EXAMPLE = JSON.stringify(
  { serviceType: "thumbnail", input: { textSourceId: "txt_…", options: { thumbnailCount: 2 } } },
  null,
  2,
);

export function SubmitPage(props: {
  shell: Shell;
  connections: Connection[];
  languages: string[];
  form: SubmitForm;
  error?: string | undefined;
  errorFor?: "transcription" | "raw";
}) {
  const csrf = props.shell.session.csrfToken;
  const active = props.connections.filter((c) => c.status === "active");
  const buckets = [...new Set(active.flatMap((c) => c.buckets))];
  const f = props.form;
  return (
    <Layout title="Submit a job" nav="submit" shell={props.shell}>
      <section aria-labelledby="tr-h">
        <h2 id="tr-h">Transcribe a video</h2>
        {props.errorFor === "transcription" && props.error ? (
          <p class="error" role="alert">
            {props.error}
          </p>
        ) : null}
        {active.length === 0 ? (
          <p>
            No active storage connection: <a href="/console/connections">add one</a> first.
          </p>
        ) : (
          <form method="post" action="/console/submit">
            <Csrf token={csrf} />
            <label for="s-conn">Storage connection</label>
            <select id="s-conn" name="connectionId" required>
              {active.map((c) => (
                <option value={c.connectionId} selected={f.connectionId === c.connectionId}>
                  {c.name} ({c.buckets.join(", ")})
                </option>
              ))}
            </select>
            <label for="s-bucket">Bucket</label>
            <input id="s-bucket" name="bucket" type="text" list="s-buckets" required value={f.bucket ?? buckets[0] ?? ""} />
            <datalist id="s-buckets">
              {buckets.map((b) => (
                <option value={b} />
              ))}
            </datalist>
            <label for="s-key">Source key</label>
            <input
              id="s-key"
              name="sourceKey"
              type="text"
              required
              placeholder="videos/talk.mp4"
              value={f.sourceKey ?? ""}
              aria-describedby="s-key-help"
            />
            <p id="s-key-help" class="muted">
              The object's key in the bucket: a video (mp4, mov, mkv, webm, …).
            </p>
            <label for="s-lang">Language</label>
            <select id="s-lang" name="language">
              <option value="" selected={!f.language}>
                Detect automatically
              </option>
              {props.languages.map((l) => (
                <option value={l} selected={f.language === l}>
                  {l}
                </option>
              ))}
            </select>
            <p>
              <button type="submit">Submit transcription</button>
            </p>
          </form>
        )}
      </section>
      <section aria-labelledby="raw-h">
        <h2 id="raw-h">Any service type, as JSON</h2>
        <p class="muted">
          The body of <code>POST /v1/jobs</code> (see docs/api.md), for example a thumbnail, clip or translation job on a transcript.
        </p>
        {props.errorFor === "raw" && props.error ? (
          <p class="error" role="alert">
            {props.error}
          </p>
        ) : null}
        {/* Multipart sends the JSON as typed; URL-encoding would triple its quotes and braces against the body limit. */}
        <form method="post" action="/console/submit/json" enctype="multipart/form-data">
          <Csrf token={csrf} />
          <label for="s-raw">Job body (JSON)</label>
          <textarea id="s-raw" name="body" rows={10} required spellcheck={false}>
            {f.raw ?? RAW_EXAMPLE}
          </textarea>
          <p>
            <button type="submit">Submit</button>
          </p>
        </form>
      </section>
    </Layout>
  );
}
