/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { Csrf, Layout, when, type Shell } from "../layout";

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
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
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
                    <form method="post" action="/console/project">
                      <Csrf token={session.csrfToken} />
                      <input type="hidden" name="projectId" value={p.projectId} />
                      <input type="hidden" name="back" value="/console/projects" />
                      <button type="submit" aria-label={`Work in the project ${p.name}`}>
                        Work in this project
                      </button>
                    </form>
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
