import { describe, expect, it } from 'vitest';
import type { FeedEvent, FeedEventOf } from '../../console/src/api-types.js';
import { type IncidentRow, IncidentStore } from '../../console/src/incident-store.js';
import { byUrgency, SEVERITIES, severityRank } from '../../console/src/severity.js';

/**
 * The Now view's incidents, kept from the lists and from each feed event's own fields: no
 * event costs a read unless it is about an incident the store does not hold.
 */

const T0 = Date.parse('2026-11-26T01:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

function row(id: string, severity: string, lastSeen: number, fields: Partial<IncidentRow> = {}) {
  return {
    id,
    status: 'open',
    severity,
    alert_name: `Alert-${id}`,
    namespace: 'shop',
    workload: 'checkout',
    fingerprint: `fp-${id}`,
    hit_count: 1,
    first_seen: at(0),
    last_seen: at(lastSeen),
    approval_id: null,
    ...fields,
  } satisfies IncidentRow;
}

const created = (
  id: string,
  severity: string,
  seconds: number,
): FeedEventOf<'incident.created'> => ({
  type: 'incident.created',
  at: at(seconds),
  incident_id: id,
  approval_id: `apr-${id}`,
  fingerprint: `fp-${id}`,
  severity,
  namespace: 'shop',
  alert_name: `Alert-${id}`,
  workload: 'checkout',
  status: 'open',
  hit_count: 1,
});

const converged = (id: string, hitCount: number, seconds: number): FeedEvent => ({
  type: 'incident.converged',
  at: at(seconds),
  incident_id: id,
  approval_id: null,
  hit_count: hitCount,
});

const ids = (rows: IncidentRow[]) => rows.map((item) => item.id);

describe('severity order', () => {
  it('lists P0 first, and ranks the older words with their P level', () => {
    expect([...SEVERITIES]).toEqual(['P0', 'P1', 'P2', 'P3']);
    expect(['info', 'P3', 'critical', 'P0', 'warning', 'unknown'].map(severityRank)).toEqual([
      3, 3, 1, 0, 2, 4,
    ]);
  });

  it('orders by severity, then the newest last seen, then id', () => {
    const rows = [row('b', 'P1', 5), row('a', 'P1', 5), row('c', 'P0', 1), row('d', 'P1', 9)];
    expect(ids(rows.sort(byUrgency))).toEqual(['c', 'd', 'a', 'b']);
  });
});

describe('IncidentStore', () => {
  it('holds a created incident from its event alone, in urgency order', () => {
    const store = new IncidentStore();
    expect(store.apply(created('p3', 'P3', 3))).toBe('changed');
    expect(store.apply(created('p0', 'P0', 1))).toBe('changed');
    expect(store.apply(created('p2', 'P2', 2))).toBe('changed');
    expect(ids(store.ranked())).toEqual(['p0', 'p2', 'p3']);
    expect(store.get('p0')).toEqual(
      row('p0', 'P0', 1, { first_seen: at(1), approval_id: 'apr-p0' }),
    );
  });

  it('asks to read an incident whose creation event lacks the fields a row shows', () => {
    const store = new IncidentStore();
    const { alert_name: _name, ...older } = created('x', 'P1', 1);
    // As an older service sent it.
    expect(store.apply(older as FeedEvent)).toBe('unknown');
    expect(store.size).toBe(0);
  });

  it('counts hits and moves the last seen on convergence; an unknown incident is to be read', () => {
    const store = new IncidentStore();
    store.merge([row('a', 'P2', 1)]);
    expect(store.apply(converged('a', 4, 10))).toBe('changed');
    expect(store.get('a')).toMatchObject({ hit_count: 4, last_seen: at(10) });
    // A late event with a lower count changes neither the count nor the time back.
    store.apply(converged('a', 2, 5));
    expect(store.get('a')).toMatchObject({ hit_count: 4, last_seen: at(10) });
    expect(store.apply(converged('b', 9, 11))).toBe('unknown');
  });

  it('follows the lifecycle from the event type; only a reopened unknown incident is read', () => {
    const store = new IncidentStore();
    store.merge([row('a', 'P1', 1)]);
    const move = (
      type: 'incident.acknowledged' | 'incident.resolved' | 'incident.reopened',
      id = 'a',
    ) => store.apply({ type, at: at(20), incident_id: id, actor: 'alice' });
    expect(move('incident.acknowledged')).toBe('changed');
    expect(store.get('a')?.status).toBe('acknowledged');
    expect(move('incident.resolved')).toBe('changed');
    expect(store.get('a')?.status).toBe('resolved');
    expect(move('incident.reopened')).toBe('changed');
    expect(store.get('a')?.status).toBe('open');
    expect(move('incident.resolved', 'z')).toBe('ignored');
    expect(move('incident.acknowledged', 'z')).toBe('ignored');
    expect(move('incident.reopened', 'z')).toBe('unknown');
    expect(
      store.apply({
        type: 'approval.created',
        at: at(1),
        approval_id: 'apr-a',
        incident_id: 'a',
        action: 'restart',
        risk_level: 'low',
      }),
    ).toBe('ignored');
  });

  it('keeps what the feed made newer when a list read answers later', () => {
    const store = new IncidentStore();
    store.merge([row('a', 'P1', 1)]);
    store.apply(converged('a', 7, 30));
    store.apply({ type: 'incident.acknowledged', at: at(31), incident_id: 'a', actor: 'alice' });
    // A read answered before those events: older last seen, fewer hits, still open.
    store.merge([row('a', 'P1', 2, { hit_count: 3 })]);
    expect(store.get('a')).toMatchObject({
      hit_count: 7,
      last_seen: at(30),
      status: 'acknowledged',
    });
    // A read as new as what is held wins on status: it saw the move the feed missed.
    store.merge([row('a', 'P1', 30, { hit_count: 7, status: 'resolved' })]);
    expect(store.get('a')?.status).toBe('resolved');
  });

  it('filters when ranking, and past its limit drops the least urgent', () => {
    const store = new IncidentStore(3);
    store.merge([row('a', 'P3', 9), row('b', 'P0', 1), row('c', 'P2', 5), row('d', 'P1', 2)]);
    store.apply(created('e', 'P3', 10));
    expect(ids(store.ranked((item) => item.severity !== 'P2'))).toEqual(['b', 'd', 'e', 'a']);
    store.trim();
    expect(ids(store.ranked())).toEqual(['b', 'd', 'c']);
    store.merge([row('f', 'P3', 1), row('g', 'P3', 2)]);
    store.trim(4);
    expect(ids(store.ranked())).toEqual(['b', 'd', 'c', 'g']);
  });
});
