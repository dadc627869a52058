/**
 * The console's pages, routed on the location's hash (`#/approvals/<id>`) so that the service
 * serves one static page. Each route names its view, which main.tsx draws: the table holds no
 * component so that Node can test the routing without the DOM or JSX.
 */

/** The entries of the main navigation; a page marks the one it belongs to as current. */
export type NavEntry =
  | 'now'
  | 'activity'
  | 'incidents'
  | 'silences'
  | 'heartbeats'
  | 'analysis'
  | 'deliveries'
  | 'signals'
  | 'readbacks'
  | 'inventory';

/**
 * Path pattern, view, the page's title and its navigation entry. A pattern ending in `:name`
 * captures the rest of the path, slashes included, decoded.
 */
export const ROUTES = [
  { view: 'now', pattern: '/', title: 'Now', nav: 'now' },
  { view: 'activity', pattern: '/activity', title: 'Activity', nav: 'activity' },
  { view: 'incidents', pattern: '/incidents', title: 'Incidents', nav: 'incidents' },
  { view: 'incident', pattern: '/incidents/:id', title: 'Incident', nav: 'incidents' },
  { view: 'silences', pattern: '/silences', title: 'Silences', nav: 'silences' },
  { view: 'heartbeats', pattern: '/heartbeats', title: 'Heartbeats', nav: 'heartbeats' },
  { view: 'approval', pattern: '/approvals/:id', title: 'Approval', nav: null },
  { view: 'analysis', pattern: '/analysis', title: 'Analysis', nav: 'analysis' },
  { view: 'analysis-task', pattern: '/analysis/:id', title: 'Analysis', nav: 'analysis' },
  { view: 'deliveries', pattern: '/deliveries', title: 'Deliveries', nav: 'deliveries' },
  { view: 'signals', pattern: '/signals', title: 'Signals', nav: 'signals' },
  { view: 'readbacks', pattern: '/readbacks', title: 'Readbacks', nav: 'readbacks' },
  { view: 'readback', pattern: '/readbacks/:name', title: 'Readback', nav: 'readbacks' },
  { view: 'scene', pattern: '/scene', title: 'Live-ops scene', nav: 'readbacks' },
  { view: 'inventory', pattern: '/inventory', title: 'Inventory', nav: 'inventory' },
] as const satisfies ReadonlyArray<{
  view: string;
  pattern: string;
  title: string;
  nav: NavEntry | null;
}>;

type Route = (typeof ROUTES)[number];
export type ViewName = Route['view'];

type ParamsOf<Pattern> = Pattern extends `${string}/:${infer Name}`
  ? { [K in Name]: string }
  : Record<never, string>;

/** Each view's match: its route, the captured parameters and the hash's query. */
export type Matches = {
  [R in Route as R['view']]: {
    view: R['view'];
    title: R['title'];
    nav: R['nav'];
    params: ParamsOf<R['pattern']>;
    query: URLSearchParams;
  };
};
export type RouteMatch = Matches[ViewName];

const NOW = ROUTES[0];

function paramsOf(pattern: string, path: string): Record<string, string> | null {
  const capture = /^(.*\/):(\w+)$/.exec(pattern);
  if (!capture) return pattern === path ? {} : null;
  const [, prefix = '', name = ''] = capture;
  if (!path.startsWith(prefix) || path.length === prefix.length) return null;
  return { [name]: decodeURIComponent(path.slice(prefix.length)) };
}

/** The page for a location hash (`#/path?query`, the `#` optional); any other path is the Now view. */
export function matchRoute(hash: string): RouteMatch {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  for (const route of ROUTES) {
    const params = paramsOf(route.pattern, path);
    // The params are those the route's own pattern captured, so they fit its match's type.
    if (params) return { ...route, params, query: new URLSearchParams(query) } as RouteMatch;
  }
  return { ...NOW, params: {}, query: new URLSearchParams(query) };
}
