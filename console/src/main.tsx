import { type JSX, render } from 'preact';
import { useEffect } from 'preact/hooks';
import { ProdClosed, TokenSignIn } from './access';
import { ActivityView } from './activity';
import './activity-feed';
import { AnalysisView } from './analysis';
import { access, signInCount } from './api';
import { ApprovalView } from './approval';
import { DeliveriesView } from './deliveries';
import { HeartbeatsView } from './heartbeats';
import { useHash, useWatched } from './hooks';
import { IncidentView } from './incident';
import { IncidentsView } from './incidents';
import { InventoryView } from './inventory';
import { NowView } from './now';
import { ReadbackDocumentView, ReadbacksView } from './readbacks';
import { type Matches, matchRoute, type NavEntry, type ViewName } from './route-match';
import { SceneView } from './scene';
import { SignalsView } from './signals';
import { SilencesView } from './silences';
import { feedState, startFeed } from './sse';
import './styles.css';
import './lifecycle.css';
import './severity.css';
import './now.css';

/** The view drawn for each route of the table in route-match.ts. */
const VIEWS: { [V in ViewName]: (match: Matches[V]) => JSX.Element } = {
  now: ({ query }) => <NowView query={query} />,
  activity: () => <ActivityView />,
  incidents: ({ query }) => <IncidentsView status={query.get('status')} />,
  incident: ({ params }) => <IncidentView id={params.id} />,
  silences: ({ query }) => <SilencesView incident={query.get('incident')} />,
  heartbeats: () => <HeartbeatsView />,
  approval: ({ params }) => <ApprovalView id={params.id} />,
  analysis: ({ query }) => <AnalysisView incident={query.get('incident')} />,
  'analysis-task': ({ params }) => <AnalysisView incident={null} task={params.id} />,
  deliveries: () => <DeliveriesView />,
  signals: () => <SignalsView />,
  readbacks: () => <ReadbacksView />,
  readback: ({ params }) => <ReadbackDocumentView name={params.name} />,
  scene: () => <SceneView />,
  inventory: () => <InventoryView />,
};

// Generic so that TypeScript pairs each view with its own route's match, with no cast.
function showView<V extends ViewName>(view: V, match: Matches[V]): JSX.Element {
  return VIEWS[view](match);
}

/** The main navigation: where each entry goes, the entry, and its words. */
const NAV: ReadonlyArray<readonly [href: string, entry: NavEntry, label: string]> = [
  ['#/', 'now', 'Now'],
  ['#/activity', 'activity', 'Activity'],
  ['#/incidents', 'incidents', 'Incidents'],
  ['#/silences', 'silences', 'Silences'],
  ['#/heartbeats', 'heartbeats', 'Heartbeats'],
  ['#/analysis', 'analysis', 'Analysis'],
  ['#/deliveries', 'deliveries', 'Deliveries'],
  ['#/signals', 'signals', 'Signals'],
  ['#/readbacks', 'readbacks', 'Readbacks'],
  ['#/inventory', 'inventory', 'Inventory'],
];

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
  const match = matchRoute(useHash());
  const accessState = useWatched(access);
  const signIns = useWatched(signInCount);

  useEffect(() => {
    // A new sign-in opens the feed again with the token.
    void signIns;
    startFeed();
  }, [signIns]);

  useEffect(() => {
    document.title = `${match.title} · Operator console`;
  }, [match.title]);

  const current = (nav: NavEntry) => (match.nav === nav ? 'page' : undefined);
  return (
    <>
      <button type="button" class="skip" onClick={skipToMain}>
        Skip to content
      </button>
      <header class="top">
        <p class="brand">Operator console</p>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([href, entry, label]) => (
              <li key={entry}>
                <a href={href} aria-current={current(entry)}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <ConnectionIndicator />
      </header>
      <main id="main" tabIndex={-1}>
        {accessState === 'needs-token' ? (
          <TokenSignIn />
        ) : accessState === 'prod-closed' ? (
          <ProdClosed />
        ) : (
          showView(match.view, match)
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
