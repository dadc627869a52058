import { describe, expect, it } from 'vitest';
import { createAlertIntake } from '../../src/features/intake/alert-intake.js';
import type { FlatAlert } from '../../src/features/intake/normalize-alert.js';
import { backends, buildTestApp } from '../helpers/build-app.js';

const signalAlert: FlatAlert = {
  alert_name: 'MutedSignal',
  severity: 'warning',
  source: 'probe',
  target_resource: 'api-1',
  namespace: 'default',
  workload: 'api',
  message: '',
  labels: {},
  annotations: {},
  status: 'firing',
};

/**
 * CONTRACT, Signals under overload ("handled exactly once") with Silences: a muted signal
 * redelivered records nothing more, and stays muted even once its silence has ended.
 */
describe.each(backends())('a muted signal redelivered on %s', (backend) => {
  it('is recorded once, and never becomes an incident on a later delivery', async () => {
    const { app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
    let muting: string | undefined = 'silence-1';
    const intake = createAlertIntake(app.services, [], {
      silences: { mutedBy: () => muting, noteMuted: () => undefined },
    });
    const options = { signalEntryId: '1700000000000-0', requestedBy: 'signal-consumer' };
    const first = await intake.accept(signalAlert, 'signal', options);
    expect(first).toMatchObject({ status: 'silenced', silence_id: 'silence-1', incident_id: null });
    expect((await intake.accept(signalAlert, 'signal', options)).status).toBe('silenced');
    muting = undefined;
    expect((await intake.accept(signalAlert, 'signal', options)).status).toBe('silenced');

    const db = app.services.store.db;
    const muted = await db
      .selectFrom('alerts')
      .select('alert_id')
      .where('outcome', '=', 'silenced')
      .execute();
    expect(muted).toHaveLength(1);
    const outcomes = await db.selectFrom('signal_outcomes').selectAll().execute();
    expect(outcomes).toMatchObject([{ entry_id: options.signalEntryId, outcome: 'silenced' }]);
    expect((await app.inject('/api/v1/incidents')).json().items).toEqual([]);
  });

  it.each([
    ['looked up by the intake', {}],
    ['looked up by the consumer for its batch', { signalOutcomeBefore: 'incident_created' }],
  ])(
    'an entry handled before a silence began is replayed, not muted, when redelivered (%s)',
    async (_how, lookup) => {
      const { app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
      let muting: string | undefined;
      const intake = createAlertIntake(app.services, [], {
        silences: { mutedBy: () => muting, noteMuted: () => undefined },
      });
      const options = { signalEntryId: '1700000000001-0', requestedBy: 'signal-consumer' };
      const first = await intake.accept(signalAlert, 'signal', options);
      expect(first.status).toBe('created');
      // A silence matching it begins before the entry is delivered again (it was not acked).
      muting = 'silence-2';
      const again = await intake.accept(signalAlert, 'signal', { ...options, ...lookup });
      expect(again).toMatchObject({ status: 'converged', incident_id: first.incident_id });
      const db = app.services.store.db;
      expect(await db.selectFrom('alerts').select('outcome').execute()).toEqual([
        { outcome: 'created' },
      ]);
      const outcomes = await db.selectFrom('signal_outcomes').selectAll().execute();
      expect(outcomes).toMatchObject([
        { entry_id: options.signalEntryId, outcome: 'incident_created' },
      ]);
    },
  );
});
