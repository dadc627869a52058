import { useState } from 'preact/hooks';
import { ApiError, api, type Operator, operator, setOperator } from './api';
import { useWatched } from './hooks';
import { Outside } from './outside';

/** The headers an operator's move carries (OPERATOR_KEYS, CONTRACT, Incident lifecycle). */
export function operatorHeaders(signedIn: Operator): Record<string, string> {
  return { 'x-operator-id': signedIn.id, 'x-operator-key': signedIn.key };
}

/** A refused key signs the operator out, so that the form asks again instead of failing on. */
export function forgetRefusedOperator(reason: unknown) {
  if (reason instanceof ApiError && reason.code === 'operator_invalid') {
    setOperator(null);
  }
}

/** What an operator's move answered: the service's words (outside text), and a state. */
export interface MoveMessage {
  ok: boolean;
  text: string;
  status?: string;
}

/**
 * One operator move at a time: `run` sends it with the signed-in operator's headers and keeps
 * what the service answered, a refused key signing the operator out.
 */
export function useOperatorMove() {
  const signedIn = useWatched(operator);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<MoveMessage | null>(null);
  const run = async (send: (headers: Record<string, string>) => Promise<MoveMessage>) => {
    if (!signedIn) return;
    setBusy(true);
    setMessage(null);
    try {
      setMessage(await send(operatorHeaders(signedIn)));
    } catch (reason) {
      forgetRefusedOperator(reason);
      setMessage({ ok: false, text: reason instanceof Error ? reason.message : String(reason) });
    } finally {
      setBusy(false);
    }
  };
  return { signedIn, busy, message, run };
}

/**
 * Who acts (recorded as `console_<id>`) and a way out; before sign-in, the form asking for an
 * operator id and key, to do `purpose`.
 */
export function OperatorSignIn({ purpose }: { purpose: string }) {
  const signedIn = useWatched(operator);
  const [id, setId] = useState('');
  const [key, setKey] = useState('');
  const [checking, setChecking] = useState(false);
  const [refused, setRefused] = useState<string | null>(null);

  // The key is checked at once (CONTRACT, Operator console): a wrong one is refused here, in
  // the service's words, and never stored, rather than failing later at the first move.
  const signIn = async (candidate: Operator) => {
    setChecking(true);
    setRefused(null);
    try {
      const me = await api<{ id: string }>('/api/v1/operators/me', {
        headers: operatorHeaders(candidate),
      });
      setOperator({ id: me.id, key: candidate.key });
    } catch (reason) {
      setRefused(reason instanceof Error ? reason.message : String(reason));
    } finally {
      setChecking(false);
    }
  };
  if (signedIn)
    return (
      <p>
        Signed in as operator{' '}
        <strong>
          <Outside>{signedIn.id}</Outside>
        </strong>
        ; recorded as{' '}
        <code>
          console_<Outside>{signedIn.id}</Outside>
        </code>
        .{' '}
        <button type="button" class="link" onClick={() => setOperator(null)}>
          Sign out
        </button>
      </p>
    );
  return (
    <form
      class="stack"
      aria-label="Operator sign-in"
      onSubmit={(event) => {
        event.preventDefault();
        if (id.trim() && key && !checking) void signIn({ id: id.trim(), key });
      }}
    >
      <p>Sign in as an operator (from OPERATOR_KEYS) to {purpose}.</p>
      <label for="operator-id">Operator id</label>
      <input
        id="operator-id"
        autocomplete="username"
        required
        value={id}
        onInput={(event) => setId(event.currentTarget.value)}
      />
      <label for="operator-key">Operator key</label>
      <input
        id="operator-key"
        type="password"
        autocomplete="current-password"
        required
        value={key}
        onInput={(event) => setKey(event.currentTarget.value)}
      />
      <button type="submit" disabled={checking}>
        Sign in as operator
      </button>
      {refused && (
        <p class="error" role="alert" data-testid="sign-in-refused">
          Sign-in refused: <Outside>{refused}</Outside>
        </p>
      )}
    </form>
  );
}
