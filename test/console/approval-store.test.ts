import { describe, expect, it } from 'vitest';
import type { FeedEvent } from '../../console/src/api-types.js';
import {
  ApprovalStore,
  consoleActor,
  type ListedApproval,
} from '../../console/src/approval-store.js';

/** The approvals the Now view pins: pending, and not yet signed by the operator reading. */

const AT = '2026-11-26T01:00:00.000Z';
const later = (seconds: number) => new Date(Date.parse(AT) + seconds * 1000).toISOString();

function listed(id: string, fields: Partial<ListedApproval> = {}): ListedApproval {
  return {
    id,
    incident_id: `inc-${id}`,
    status: 'pending',
    action: `restart ${id}`,
    risk_level: 'medium',
    signers: 0,
    signers_needed: 1,
    signed_by: [],
    created_at: AT,
    incident: { alert_name: `Alert-${id}`, namespace: 'shop', severity: 'P2', status: 'open' },
    ...fields,
  };
}

const ids = (items: { id: string }[]) => items.map((item) => item.id);
const noIncident = () => undefined;

describe('ApprovalStore', () => {
  it('waits for an operator on what it has not signed; with nobody signed in, on every pending one', () => {
    const store = new ApprovalStore();
    store.merge([
      listed('a', {
        risk_level: 'critical',
        signers: 1,
        signers_needed: 2,
        signed_by: ['console_alice'],
      }),
      listed('b'),
      listed('c', { status: 'approved' }),
    ]);
    expect(consoleActor('alice')).toBe('console_alice');
    expect(ids(store.waitingFor('alice'))).toEqual(['b']);
    expect(ids(store.waitingFor('bob')).sort()).toEqual(['a', 'b']);
    expect(ids(store.waitingFor(null)).sort()).toEqual(['a', 'b']);
  });

  it("puts the most severe incident's approval first, then the newest", () => {
    const store = new ApprovalStore();
    const incident = (severity: string) => ({
      alert_name: 'X',
      namespace: 'n',
      severity,
      status: 'open',
    });
    store.merge([
      listed('p3', { incident: incident('P3'), created_at: later(9) }),
      listed('p0-old', { incident: incident('P0'), created_at: later(1) }),
      listed('p0-new', { incident: incident('P0'), created_at: later(2) }),
      // No incident known: its risk stands for the severity (critical is P0's).
      listed('high', { incident: null, risk_level: 'high', created_at: later(3) }),
    ]);
    expect(ids(store.waitingFor(null))).toEqual(['p0-new', 'p0-old', 'high', 'p3']);
  });

  it('holds a new approval from its event, with the signers its risk needs and its incident', () => {
    const store = new ApprovalStore();
    const incident = { alert_name: 'DiskFull', namespace: 'prod', severity: 'P0' };
    const applied = store.apply(
      {
        type: 'approval.created',
        at: later(5),
        approval_id: 'n',
        incident_id: 'inc-n',
        action: 'scale up',
        risk_level: 'critical',
      },
      (id) => (id === 'inc-n' ? incident : undefined),
    );
    expect(applied).toBe('changed');
    expect(store.waitingFor(null)).toEqual([
      {
        id: 'n',
        incident_id: 'inc-n',
        action: 'scale up',
        risk_level: 'critical',
        signers: 0,
        signers_needed: 2,
        signed_by: [],
        created_at: later(5),
        incident,
      },
    ]);
  });

  it('reads an approval again when a decision leaves it pending; lets it go when decided', () => {
    const store = new ApprovalStore();
    store.merge([listed('a', { risk_level: 'critical', signers_needed: 2 })]);
    const updated = (status: string) =>
      store.apply(
        {
          type: 'approval.updated',
          at: AT,
          approval_id: 'a',
          status,
          actor: 'console_alice',
          channel: 'console',
        },
        noIncident,
      );
    expect(updated('pending')).toBe('read');
    store.merge([listed('a', { signers: 1, signers_needed: 2, signed_by: ['console_alice'] })]);
    expect(store.waitingFor('alice')).toEqual([]);
    expect(store.waitingFor('bob')[0]?.signed_by).toEqual(['console_alice']);
    expect(updated('approved')).toBe('changed');
    expect(store.size).toBe(0);
    expect(updated('approved')).toBe('ignored');
  });

  it('asks to read an approval whose event has no action (an older service)', () => {
    const store = new ApprovalStore();
    expect(
      store.apply(
        { type: 'approval.created', at: AT, approval_id: 'x', incident_id: null } as FeedEvent,
        noIncident,
      ),
    ).toBe('read');
    expect(
      store.apply({ type: 'incident.created', at: AT, incident_id: 'i' } as FeedEvent, noIncident),
    ).toBe('ignored');
  });

  it('learns the incident of an approval held before the incident was named', () => {
    const store = new ApprovalStore();
    store.merge([listed('a', { incident: null })]);
    store.fillIncidents((id) =>
      id === 'inc-a' ? { alert_name: 'Late', namespace: 'ops', severity: 'P1' } : undefined,
    );
    expect(store.waitingFor(null)[0]?.incident?.alert_name).toBe('Late');
  });

  it('holds at most its limit, the oldest let go first', () => {
    const store = new ApprovalStore(2);
    store.merge([listed('a'), listed('b'), listed('c')]);
    expect(ids(store.waitingFor(null)).sort()).toEqual(['b', 'c']);
  });
});
