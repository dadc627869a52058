import { describe, expect, it } from 'vitest';
import { matchRoute, ROUTES } from '../../console/src/route-match.js';

/** The console's hash routing: which view a location shows, with what parameters and title. */

describe('matchRoute', () => {
  it.each([
    ['', 'now', {}],
    ['#', 'now', {}],
    ['#/', 'now', {}],
    ['#/activity', 'activity', {}],
    ['#/analysis/task-1', 'analysis-task', { id: 'task-1' }],
    ['#/approvals/apr-1', 'approval', { id: 'apr-1' }],
    ['#/approvals/a%2Fb%20c', 'approval', { id: 'a/b c' }],
    ['#/approvals/a/b', 'approval', { id: 'a/b' }],
    ['#/incidents?status=open', 'incidents', {}],
    ['#/incidents/inc-1', 'incident', { id: 'inc-1' }],
    ['#/silences?incident=inc-1', 'silences', {}],
    ['#/heartbeats', 'heartbeats', {}],
    ['#/analysis', 'analysis', {}],
    ['#/deliveries', 'deliveries', {}],
    ['#/signals', 'signals', {}],
    ['#/readbacks', 'readbacks', {}],
    [
      '#/readbacks/agentcore-live-ops-scene-state?json=1',
      'readback',
      {
        name: 'agentcore-live-ops-scene-state',
      },
    ],
    ['#/scene', 'scene', {}],
    ['#/inventory', 'inventory', {}],
    ['/signals', 'signals', {}],
  ])('%s shows the %s view', (hash, view, params) => {
    const match = matchRoute(hash);
    expect(match.view).toBe(view);
    expect(match.params).toEqual(params);
  });

  it.each([
    '#/nowhere',
    '#/Signals',
    '#/signals/',
    '#/approvals',
    '#/approvals/',
    '#/incidents/',
    '#/readbacks/',
    '#signals',
  ])('shows the Now view for %s, which no route takes', (hash) => {
    expect(matchRoute(hash)).toMatchObject({ view: 'now', title: 'Now', nav: 'now' });
  });

  it("hands the analysis view the hash's query", () => {
    expect(matchRoute('#/analysis?incident=inc%201').query.get('incident')).toBe('inc 1');
    expect(matchRoute('#/analysis').query.get('incident')).toBeNull();
  });

  it.each([
    ['#/', 'Now', 'now'],
    ['#/approvals/x', 'Approval', null],
    ['#/incidents', 'Incidents', 'incidents'],
    ['#/incidents/x', 'Incident', 'incidents'],
    ['#/silences', 'Silences', 'silences'],
    ['#/heartbeats', 'Heartbeats', 'heartbeats'],
    ['#/analysis', 'Analysis', 'analysis'],
    ['#/deliveries', 'Deliveries', 'deliveries'],
    ['#/signals', 'Signals', 'signals'],
    ['#/readbacks', 'Readbacks', 'readbacks'],
    ['#/readbacks/x', 'Readback', 'readbacks'],
    ['#/scene', 'Live-ops scene', 'readbacks'],
    ['#/inventory', 'Inventory', 'inventory'],
  ])('titles %s "%s" under the %s navigation entry', (hash, title, nav) => {
    expect(matchRoute(hash)).toMatchObject({ title, nav });
  });

  it('has one route per view, each reached by its own pattern', () => {
    expect(new Set(ROUTES.map((route) => route.view)).size).toBe(ROUTES.length);
    for (const route of ROUTES) {
      const path = route.pattern.replace(/:\w+$/, 'x');
      expect(matchRoute(`#${path}`).view).toBe(route.view);
    }
  });
});
