/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { Layout, when, type Shell } from "../layout";

export interface WorkspaceView {
  workspaceId: string;
  name: string;
  plan: string;
  usage: {
    period: string;
    resetsAt: string;
    meters: Array<{ meter: string; used: number; limit: number | null; remaining: number | null }>;
  };
}

export function UsagePage(props: { shell: Shell; workspace: WorkspaceView }) {
  const w = props.workspace;
  return (
    <Layout title="Usage and credits" nav="usage" shell={props.shell}>
      <p>
        Workspace <strong>{w.name}</strong> on the <strong>{w.plan}</strong> plan. Period {w.usage.period}, resets {when(w.usage.resetsAt)}{" "}
        UTC.
      </p>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Meter</th>
              <th scope="col">Used</th>
              <th scope="col">Limit</th>
              <th scope="col">Remaining</th>
              <th scope="col">Share used</th>
            </tr>
          </thead>
          <tbody>
            {w.usage.meters.map((m) => (
              <tr>
                <td>{m.meter.replace(/_/g, " ")}</td>
                <td>{m.used}</td>
                <td>{m.limit ?? "unlimited"}</td>
                <td>{m.remaining ?? "—"}</td>
                <td>
                  {m.limit ? (
                    <meter
                      min={0}
                      max={m.limit}
                      value={m.used}
                      low={m.limit * 0.7}
                      high={m.limit * 0.9}
                      optimum={0}
                      aria-label={`${m.meter} used`}
                    >
                      {m.used} of {m.limit}
                    </meter>
                  ) : (
                    "—"
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
