/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { AuditEvent } from "../../../contracts/audit-log";
import { REDACTION_MODES, type DataPolicy } from "../../../contracts/data-policy";
import { Csrf, Layout, when, type Shell } from "../layout";

/**
 * "Your data" (issue 25): the project's data policy (retention, redaction, voice-cloning consent),
 * the workspace's audit log of deletions, and deleting the project. Changing any of it is for
 * workspace admins; members see the policy.
 */

const REDACTION_LABELS: Record<(typeof REDACTION_MODES)[number], string> = {
  off: "Off: transcripts are never redacted",
  optional: "On request: a job's options.redaction asks",
  required: "Required: every transcript, and everything made from it",
};

const days = (n: number | null) => (n === null ? "" : String(n));

export function DataPage(props: {
  shell: Shell;
  policy: DataPolicy;
  audit: AuditEvent[];
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const csrf = props.shell.session.csrfToken;
  const admin = props.shell.session.user.role === "admin";
  const project = props.shell.session.project;
  const p = props.policy;
  return (
    <Layout title="Your data" nav="data" shell={props.shell} notice={props.notice} error={props.error}>
      <h2>Data policy of {project?.name ?? "no project"}</h2>
      <form method="post" action="/console/data/policy">
        <Csrf token={csrf} />
        <label for="retention-days">Delete transcripts (and everything made from them) after this many days</label>
        <input
          id="retention-days"
          name="retentionDays"
          type="number"
          min={1}
          max={3650}
          value={days(p.retentionDays)}
          placeholder="keep"
          disabled={!admin}
        />
        <label for="job-retention-days">Delete finished jobs after this many days</label>
        <input
          id="job-retention-days"
          name="jobRetentionDays"
          type="number"
          min={1}
          max={3650}
          value={days(p.jobRetentionDays)}
          placeholder="keep"
          disabled={!admin}
        />
        <label for="redaction">Redaction of personal data</label>
        <select id="redaction" name="redaction" disabled={!admin}>
          {REDACTION_MODES.map((m) => (
            <option value={m} selected={p.redaction === m}>
              {REDACTION_LABELS[m]}
            </option>
          ))}
        </select>
        <p>
          <input id="keep-unredacted" name="keepUnredacted" type="checkbox" value="true" checked={p.keepUnredacted} disabled={!admin} />{" "}
          <label for="keep-unredacted">Keep the unredacted text of redacted transcripts (readable only with a dedicated permission)</label>
        </p>
        <p>
          <input
            id="require-consent"
            name="requireConsent"
            type="checkbox"
            value="true"
            checked={p.voiceCloning.requireConsent}
            disabled={!admin}
          />{" "}
          <label for="require-consent">Clone a speaker's voice only with their consent</label>
        </p>
        {admin ? (
          <p>
            <button type="submit">Save the policy</button>
          </p>
        ) : (
          <p class="muted">Only a workspace admin can change the data policy.</p>
        )}
      </form>
      <p class="muted">Empty retention fields keep data until it is deleted. Retention never deletes files in your bucket.</p>

      {admin ? (
        <>
          <h2>Audit log</h2>
          <p class="muted">
            Every deletion in the workspace, by a key, a person or a retention policy. Entries hold ids and counts, never content.
          </p>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When (UTC)</th>
                  <th scope="col">What</th>
                  <th scope="col">Subject</th>
                  <th scope="col">By</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {props.audit.map((e) => (
                  <tr data-audit={e.auditEventId}>
                    <td>{when(e.createdAt)}</td>
                    <td>{e.action}</td>
                    <td>
                      <code>{e.subject.id}</code>
                    </td>
                    <td>
                      {e.actor.kind === "policy" ? "policy " : ""}
                      {e.actor.label}
                    </td>
                    <td>{e.state === "completed" ? "done" : "in progress"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {props.audit.length === 0 ? <p class="muted">Nothing has been deleted yet.</p> : null}

          <h2>Delete this project</h2>
          <p>
            Revokes every key and console session of <strong>{project?.name}</strong> at once, deactivates its storage connections, then
            erases its transcripts, records, jobs, voices and index. Files in your bucket stay unless you tick the box.
          </p>
          <form method="post" action="/console/data/delete-project">
            <Csrf token={csrf} />
            <label for="confirm-name">Type the project's name to confirm</label>
            <input id="confirm-name" name="confirmName" type="text" required autocomplete="off" />
            <p>
              <input id="delete-outputs" name="deleteOutputs" type="checkbox" value="true" />{" "}
              <label for="delete-outputs">Also delete the files the service wrote into the bucket</label>
            </p>
            <p>
              <button type="submit" class="danger">
                Delete the project
              </button>
            </p>
          </form>
        </>
      ) : null}
    </Layout>
  );
}
