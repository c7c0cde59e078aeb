/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { StoredTrigger } from "../../../contracts/triggers";
import type { Preset } from "../../../contracts/workflows";
import { Csrf, Layout, PostButton, when, type Shell } from "../layout";

/**
 * Presets (issue 26, docs/api.md "Presets"): named workflows of the project. The page lists them with
 * the triggers that start them, makes one from its steps as JSON, deletes one, and runs one with its
 * variables filled in.
 */

export interface PresetForm {
  name?: string;
  description?: string;
  steps?: string;
}

/** A connection's triggers, as the presets page names the ones that use a preset. */
export interface ConnectionTriggers {
  connectionId: string;
  name: string;
  triggers: StoredTrigger[];
}

export const STEPS_EXAMPLE = JSON.stringify(
  [
    {
      id: "transcribe",
      serviceType: "transcription",
      input: { sourceType: "s3_direct", connectionId: "stc_…", bucket: "media", sourceKey: "{{vars.sourceKey}}" },
    },
    { id: "clips", serviceType: "clip_generation", input: { textSourceId: "{{transcribe.textSourceId}}", options: { maxClips: 3 } } },
  ],
  null,
  2,
);

/** The form field of a variable in a preset's Run form (`var.sourceKey`). */
export const variableField = (name: string) => `var.${name}`;

/** "transcribe (transcription) → clips (clip_generation, after transcribe)" */
function stepsSummary(p: Preset): string {
  return p.steps.map((s) => `${s.id} (${s.serviceType}${s.dependsOn?.length ? `, after ${s.dependsOn.join(", ")}` : ""})`).join(" → ");
}

function usedBy(p: Preset, connections: ConnectionTriggers[]) {
  return connections.flatMap((c) =>
    c.triggers
      .filter((t) => t.presetId === p.presetId)
      .map((t) => ({ connection: c.name, where: `${t.bucket}/${t.prefix}`, enabled: t.enabled })),
  );
}

export function PresetsPage(props: {
  shell: Shell;
  presets: Preset[];
  connections: ConnectionTriggers[];
  form: PresetForm;
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const csrf = props.shell.session.csrfToken;
  return (
    <Layout title="Presets" nav="presets" shell={props.shell} notice={props.notice} error={props.error}>
      <p>
        A preset is a workflow saved under a name: run it here with its variables, name it in <code>POST /v1/workflows</code>, or let an
        upload trigger of a <a href="/console/connections">storage connection</a> start it.
      </p>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Steps</th>
              <th scope="col">Variables</th>
              <th scope="col">Used by triggers</th>
              <th scope="col">Updated (UTC)</th>
              <th scope="col">
                <span class="muted">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.presets.map((p) => {
              const triggers = usedBy(p, props.connections);
              return (
                <tr data-preset={p.presetId}>
                  <td>
                    {p.name}
                    <div class="muted">
                      <code>{p.presetId}</code>
                    </div>
                    {p.description ? <div>{p.description}</div> : null}
                  </td>
                  <td>{stepsSummary(p)}</td>
                  <td>
                    {p.variables.length ? (
                      p.variables.map((v, i) => (
                        <>
                          {i ? ", " : ""}
                          <code>{v}</code>
                        </>
                      ))
                    ) : (
                      <span class="muted">none</span>
                    )}
                  </td>
                  <td>
                    {triggers.length ? (
                      <ul>
                        {triggers.map((t) => (
                          <li>
                            {t.connection}: <code>{t.where}</code>
                            {t.enabled ? "" : " (disabled)"}
                          </li>
                        ))}
                      </ul>
                    ) : (
                      <span class="muted">none</span>
                    )}
                  </td>
                  <td>{when(p.updatedAt)}</td>
                  <td>
                    <form method="post" action={`/console/presets/${p.presetId}/run`} class="inline-form">
                      <Csrf token={csrf} />
                      {p.variables.map((v) => (
                        <>
                          <label for={`run-${p.presetId}-${v}`}>{v}</label>
                          <input id={`run-${p.presetId}-${v}`} name={variableField(v)} type="text" required maxlength={1024} />
                        </>
                      ))}
                      <button type="submit" aria-label={`Run preset ${p.name}`}>
                        Run
                      </button>
                    </form>
                    <PostButton
                      action={`/console/presets/${p.presetId}/delete`}
                      csrf={csrf}
                      label="Delete"
                      name={`Delete preset ${p.name}`}
                      danger
                    />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {props.presets.length === 0 ? <p>No preset yet.</p> : null}
      <h2>Create a preset</h2>
      <form method="post" action="/console/presets">
        <Csrf token={csrf} />
        <label for="p-name">Name</label>
        <input id="p-name" name="name" type="text" required maxlength={80} value={props.form.name ?? ""} />
        <label for="p-description">Description</label>
        <input id="p-description" name="description" type="text" maxlength={1000} value={props.form.description ?? ""} />
        <label for="p-steps">Steps (JSON array, as in POST /v1/workflows)</label>
        <textarea id="p-steps" name="steps" rows={16} required>
          {props.form.steps ?? STEPS_EXAMPLE}
        </textarea>
        <p class="muted">
          A string may name a value of an earlier step (<code>{"{{transcribe.textSourceId}}"}</code>), a variable given when the preset runs
          (<code>{"{{vars.sourceKey}}"}</code>) or the upload that triggered it (<code>{"{{trigger.key}}"}</code>).
        </p>
        <p>
          <button type="submit">Create preset</button>
        </p>
      </form>
    </Layout>
  );
}
