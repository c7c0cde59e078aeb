/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { ActionsHeader, Layout, PostButton, when, type Shell } from "../layout";

/** The workspace's projects: the one this session works in, and a button to work in another. */

export interface ProjectView {
  projectId: string;
  name: string;
  webhookUrl: string | null;
  createdAt: string;
}

export function ProjectsPage(props: { shell: Shell; projects: ProjectView[]; notice?: string | undefined }) {
  const { session } = props.shell;
  const current = session.project?.projectId ?? null;
  return (
    <Layout title="Projects" nav="projects" shell={props.shell} notice={props.notice}>
      <p>
        Workspace <strong>{session.workspace.name}</strong> ({session.workspace.plan} plan). A console session works in one project at a
        time: its jobs, transcripts, keys and storage.
      </p>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Id</th>
              <th scope="col">Webhook URL</th>
              <th scope="col">Created (UTC)</th>
              <ActionsHeader />
            </tr>
          </thead>
          <tbody>
            {props.projects.map((p) => (
              <tr aria-current={p.projectId === current ? "true" : undefined}>
                <td>
                  <strong>{p.name}</strong>
                </td>
                <td>
                  <code>{p.projectId}</code>
                </td>
                <td>{p.webhookUrl ? <code>{p.webhookUrl}</code> : <span class="muted">none</span>}</td>
                <td>{when(p.createdAt)}</td>
                <td>
                  {p.projectId === current ? (
                    <span class="badge s-completed">current</span>
                  ) : (
                    <PostButton
                      action="/console/project"
                      csrf={session.csrfToken}
                      fields={{ projectId: p.projectId, back: "/console/projects" }}
                      label="Work in this project"
                      name={`Work in the project ${p.name}`}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Layout>
  );
}
