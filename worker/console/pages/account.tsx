/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../../platform/password";
import { Csrf, Layout, type Shell } from "../layout";

/** The signed-in user's own account: who they are, and a password change that ends their other sessions. */
export function AccountPage(props: { shell: Shell; notice?: string | undefined; error?: string | undefined }) {
  const { user, workspace } = props.shell.session;
  return (
    <Layout title="Your account" shell={props.shell} notice={props.notice} error={props.error}>
      <dl class="facts">
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Role</dt>
        <dd>{user.role}</dd>
        <dt>Workspace</dt>
        <dd>{workspace.name}</dd>
      </dl>
      <h2 id="password-h">Change your password</h2>
      <p class="muted">Every other session of yours (another browser, another device) ends when the password changes; this one stays.</p>
      <form method="post" action="/console/account/password" aria-labelledby="password-h">
        <Csrf token={props.shell.session.csrfToken} />
        <label for="current-password">Current password</label>
        <input id="current-password" name="currentPassword" type="password" autocomplete="current-password" required />
        <label for="new-password">New password</label>
        <input
          id="new-password"
          name="newPassword"
          type="password"
          autocomplete="new-password"
          required
          minlength={PASSWORD_MIN_LENGTH}
          maxlength={PASSWORD_MAX_LENGTH}
          aria-describedby="new-password-hint"
        />
        <p class="muted" id="new-password-hint">
          {PASSWORD_MIN_LENGTH}–{PASSWORD_MAX_LENGTH} characters.
        </p>
        <p>
          <button type="submit">Change password</button>
        </p>
      </form>
    </Layout>
  );
}
