/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { Layout, type Shell } from "../layout";

export function ErrorPage(props: { shell: Shell; status: number; message: string }) {
  return (
    <Layout title={props.status === 404 ? "Not found" : "Something went wrong"} shell={props.shell} error={props.message}>
      <p>
        <a href="/console/jobs">Back to the jobs</a>
      </p>
    </Layout>
  );
}
