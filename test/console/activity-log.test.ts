import { describe, expect, it } from 'vitest';
import { ActivityLog } from '../../console/src/activity-log.js';
import type { FeedEvent } from '../../console/src/api-types.js';

/** The Activity list: the last hour, bounded, one line per analysis task and per incident's hits. */

const T0 = Date.parse('2026-11-26T01:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
/** Only the fields a case is about, which is all the log reads of an event. */
const event = (type: FeedEvent['type'], seconds: number, fields: object = {}) =>
  ({ type, at: at(seconds), ...fields }) as FeedEvent;
const types = (log: ActivityLog, now = T0 + 100_000) =>
  log.entries(now).map((entry) => `${entry.event.type}@${(Date.parse(entry.at) - T0) / 1000}`);

describe('ActivityLog', () => {
  it('lists newest first', () => {
    const log = new ActivityLog();
    log.add(event('silence.created', 1, { silence_id: 's' }), T0);
    log.add(event('incident.resolved', 2, { incident_id: 'i' }), T0);
    expect(types(log)).toEqual(['incident.resolved@2', 'silence.created@1']);
  });

  it("keeps one line per analysis task and per incident's hits, moved up and updated in place", () => {
    const log = new ActivityLog();
    log.add(event('analysis.updated', 1, { task_id: 't1', progress: 10 }), T0);
    log.add(event('incident.converged', 2, { incident_id: 'i', hit_count: 2 }), T0);
    log.add(event('analysis.updated', 3, { task_id: 't2', progress: 5 }), T0);
    log.add(event('analysis.updated', 4, { task_id: 't1', progress: 60 }), T0);
    log.add(event('incident.converged', 5, { incident_id: 'i', hit_count: 9 }), T0);
    const entries = log.entries(T0 + 10_000);
    expect(entries.map((entry) => entry.key)).toEqual(['hits:i', 'analysis:t1', 'analysis:t2']);
    expect(entries[0]?.event).toMatchObject({ hit_count: 9 });
    expect(entries[1]?.event).toMatchObject({ progress: 60 });
  });

  it('forgets what is older than its span, and past its limit the oldest lines', () => {
    const log = new ActivityLog(3, 60_000);
    for (let i = 0; i < 5; i++) log.add(event('silence.created', i, { silence_id: `s${i}` }), T0);
    expect(types(log, T0 + 5_000)).toEqual([
      'silence.created@4',
      'silence.created@3',
      'silence.created@2',
    ]);
    expect(types(log, T0 + 62_500)).toEqual(['silence.created@4', 'silence.created@3']);
    expect(log.entries(T0 + 3_600_000)).toEqual([]);
  });

  it('names incidents from their creation events and from lists, and approvals their incident', () => {
    const log = new ActivityLog();
    log.add(
      event('incident.created', 1, {
        incident_id: 'i1',
        alert_name: 'DiskFull',
        namespace: 'prod',
        severity: 'P1',
        approval_id: 'a1',
      }),
      T0,
    );
    log.noteIncident('i2', { alert_name: 'Listed', namespace: 'ops' });
    expect(log.incidentName('i1')).toEqual({
      alert_name: 'DiskFull',
      namespace: 'prod',
      severity: 'P1',
    });
    expect(log.incidentName('i2')?.alert_name).toBe('Listed');
    expect(log.incidentName('i3')).toBeUndefined();
    expect(log.incidentOfApproval('a1')).toBe('i1');
  });

  it('comes back the same from what it saved, and from garbage as an empty log', () => {
    const log = new ActivityLog();
    log.add(
      event('incident.created', 1, {
        incident_id: 'i1',
        alert_name: 'A',
        namespace: 'n',
        approval_id: 'a1',
      }),
      T0,
    );
    log.add(event('analysis.updated', 2, { task_id: 't', progress: 50 }), T0);
    log.add(event('analysis.updated', 3, { task_id: 't', progress: 70 }), T0);
    const again = ActivityLog.from(JSON.parse(JSON.stringify(log)), T0 + 5_000);
    expect(types(again)).toEqual(types(log));
    expect(again.incidentName('i1')?.alert_name).toBe('A');
    expect(again.incidentOfApproval('a1')).toBe('i1');
    for (const garbage of [null, 'x', { entries: 'x', names: [[1, 2]], approvals: [['a']] }]) {
      expect(ActivityLog.from(garbage, T0).entries(T0)).toEqual([]);
    }
  });
});
