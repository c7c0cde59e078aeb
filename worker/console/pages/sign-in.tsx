/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { Document, Flash } from "../layout";

export function SignInPage(props: { next: string; email?: string; error?: string | undefined; notice?: string | undefined }) {
  return (
    <Document title="Sign in">
      <main id="main" class="signin">
        <h1>Sign in to media-jobs</h1>
        <Flash notice={props.notice} error={props.error} />
        <form method="post" action="/console/sign-in">
          <input type="hidden" name="next" value={props.next} />
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={props.email ?? ""} autofocus />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <p>
            <button type="submit">Sign in</button>
          </p>
        </form>
        <p class="muted">
          Accounts are created by the operator (<code>npm run admin -- users create</code>) or by an invitation from a workspace admin.
        </p>
      </main>
    </Document>
  );
}
