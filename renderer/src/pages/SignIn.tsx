import { useEffect, useState } from 'preact/hooks';
import { api } from '../lib/api.ts';

/** Signing in: the one-time link Hearth printed at start, or the workspace id and its auth token. */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · Hearth';
  }, []);
  return (
    <main id="sign-in" class="sign-in">
      <h1>Sign in to Hearth</h1>
      <p>
        Open the sign-in link Hearth printed at start (or run <code>npx hearth signin-link</code>), or sign in with the workspace id and auth token from{' '}
        <code>data/credentials.json</code>.
      </p>
      <form
        id="sign-in-form"
        onSubmit={async (event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget as HTMLFormElement);
          setBusy(true);
          setError('');
          try {
            await api.signIn({ workspaceId: String(form.get('workspaceId') ?? ''), workspaceAuthToken: String(form.get('workspaceAuthToken') ?? '') });
            onSignedIn();
          } catch (e) {
            setError(e instanceof Error ? e.message : 'Sign-in failed.');
          } finally {
            setBusy(false);
          }
        }}
      >
        <label>
          Workspace id
          <input name="workspaceId" autocomplete="username" required />
        </label>
        <label>
          Workspace auth token
          <input name="workspaceAuthToken" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
        <p id="sign-in-error" class="error" role="alert">
          {error}
        </p>
      </form>
    </main>
  );
}
