import { useState } from 'preact/hooks';
import { setConsoleToken } from './api';

export function TokenSignIn() {
  const [token, setToken] = useState('');
  return (
    <section class="panel narrow" aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in</h1>
      <p>
        This service asks for its console token (<code>CONSOLE_TOKEN</code>). It is kept for this
        tab only and sent as <code>Authorization: Bearer</code>.
      </p>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          if (token.trim()) setConsoleToken(token.trim());
        }}
      >
        <label for="console-token">Console token</label>
        <input
          id="console-token"
          name="console-token"
          type="password"
          autocomplete="current-password"
          required
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
        <button type="submit">Sign in</button>
      </form>
    </section>
  );
}

export function ProdClosed() {
  return (
    <section class="panel narrow" aria-labelledby="closed-title">
      <h1 id="closed-title">Set CONSOLE_TOKEN to use the console</h1>
      <p>
        This service runs with <code>APP_ENV=prod</code> and no <code>CONSOLE_TOKEN</code>, so its
        read API, which the console reads, is closed.
      </p>
      <p>Give it a long random token and restart it, for example:</p>
      <pre>
        <code>CONSOLE_TOKEN="$(openssl rand -hex 32)" npm start</code>
      </pre>
      <p>Then open this page again and sign in with that token.</p>
    </section>
  );
}
