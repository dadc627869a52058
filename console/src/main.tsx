import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { ProdClosed, TokenSignIn } from './access';
import { AnalysisView } from './analysis';
import { access, signInCount } from './api';
import { ApprovalView } from './approval';
import { DeliveriesView } from './deliveries';
import { FeedView } from './feed';
import { useHash, useWatched } from './hooks';
import { InventoryView } from './inventory';
import { ReadbackDocumentView, ReadbacksView } from './readbacks';
import { SceneView } from './scene';
import { SignalsView } from './signals';
import { feedState, startFeed } from './sse';
import './styles.css';

type Route =
  | { view: 'feed' }
  | { view: 'approval'; id: string }
  | { view: 'analysis'; incident: string | null }
  | { view: 'deliveries' }
  | { view: 'signals' }
  | { view: 'readbacks' }
  | { view: 'readback'; name: string }
  | { view: 'scene' }
  | { view: 'inventory' };

function routeOf(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const approval = /^\/approvals\/(.+)$/.exec(path);
  if (approval?.[1]) return { view: 'approval', id: decodeURIComponent(approval[1]) };
  const readback = /^\/readbacks\/(.+)$/.exec(path);
  if (readback?.[1]) return { view: 'readback', name: decodeURIComponent(readback[1]) };
  if (path === '/deliveries') return { view: 'deliveries' };
  if (path === '/signals') return { view: 'signals' };
  if (path === '/readbacks') return { view: 'readbacks' };
  if (path === '/scene') return { view: 'scene' };
  if (path === '/inventory') return { view: 'inventory' };
  if (path === '/analysis') {
    return { view: 'analysis', incident: new URLSearchParams(query).get('incident') };
  }
  return { view: 'feed' };
}

const STATE_TEXT = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  stopped: 'Offline',
} as const;

function ConnectionIndicator() {
  const state = useWatched(feedState);
  return (
    <p class={`connection connection-${state}`} role="status" data-state={state}>
      <span class="dot" aria-hidden="true" />
      {STATE_TEXT[state]}
    </p>
  );
}

function App() {
  const route = routeOf(useHash());
  const accessState = useWatched(access);
  const signIns = useWatched(signInCount);

  useEffect(() => {
    // A new sign-in opens the feed again with the token.
    void signIns;
    startFeed();
  }, [signIns]);

  useEffect(() => {
    const title = {
      feed: 'Feed',
      approval: 'Approval',
      analysis: 'Analysis',
      deliveries: 'Deliveries',
      signals: 'Signals',
      readbacks: 'Readbacks',
      readback: 'Readback',
      scene: 'Live-ops scene',
      inventory: 'Inventory',
    }[route.view];
    document.title = `${title} · Operator console`;
  }, [route.view]);

  const current = (...views: Route['view'][]) => (views.includes(route.view) ? 'page' : undefined);
  return (
    <>
      <button type="button" class="skip" onClick={skipToMain}>
        Skip to content
      </button>
      <header class="top">
        <p class="brand">Operator console</p>
        <nav aria-label="Main">
          <ul>
            <li>
              <a href="#/" aria-current={current('feed')}>
                Feed
              </a>
            </li>
            <li>
              <a href="#/analysis" aria-current={current('analysis')}>
                Analysis
              </a>
            </li>
            <li>
              <a href="#/deliveries" aria-current={current('deliveries')}>
                Deliveries
              </a>
            </li>
            <li>
              <a href="#/signals" aria-current={current('signals')}>
                Signals
              </a>
            </li>
            <li>
              <a href="#/readbacks" aria-current={current('readbacks', 'readback', 'scene')}>
                Readbacks
              </a>
            </li>
            <li>
              <a href="#/inventory" aria-current={current('inventory')}>
                Inventory
              </a>
            </li>
          </ul>
        </nav>
        <ConnectionIndicator />
      </header>
      <main id="main" tabIndex={-1}>
        {accessState === 'needs-token' ? (
          <TokenSignIn />
        ) : accessState === 'prod-closed' ? (
          <ProdClosed />
        ) : route.view === 'approval' ? (
          <ApprovalView id={route.id} />
        ) : route.view === 'analysis' ? (
          <AnalysisView incident={route.incident} />
        ) : route.view === 'deliveries' ? (
          <DeliveriesView />
        ) : route.view === 'signals' ? (
          <SignalsView />
        ) : route.view === 'readbacks' ? (
          <ReadbacksView />
        ) : route.view === 'readback' ? (
          <ReadbackDocumentView name={route.name} />
        ) : route.view === 'scene' ? (
          <SceneView />
        ) : route.view === 'inventory' ? (
          <InventoryView />
        ) : (
          <FeedView />
        )}
      </main>
    </>
  );
}

/** Hash routing owns the fragment: the skip link moves focus instead of navigating. */
function skipToMain() {
  document.getElementById('main')?.focus();
}

const root = document.getElementById('app');
if (root) render(<App />, root);
