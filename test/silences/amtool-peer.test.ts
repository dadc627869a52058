import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends, buildTestApp, type TestApp } from '../helpers/build-app.js';
import { CONSOLE_TOKEN, maintenanceAlert, postAlert } from './silence-helpers.js';

/**
 * CONTRACT, Silences: `amtool` (0.25, Debian's `prometheus-alertmanager`) adds, queries and
 * expires silences against the service as it would against an Alertmanager, with the console
 * token given through `--http.config.file` (`authorization.credentials`).
 */
const AMTOOL = '/usr/bin/amtool';
const installed = fs.existsSync(AMTOOL);
if (!installed && process.env.REQUIRE_SERVICES === '1') {
  throw new Error('REQUIRE_SERVICES=1 needs amtool (apt-get install prometheus-alertmanager)');
}
if (!installed) console.warn('[tests] amtool not installed: its suite is skipped');

const run = promisify(execFile);

describe.runIf(installed).each(backends())('amtool against the service on %s', (backend) => {
  let app: TestApp['app'];
  let port: number;
  let dir: string;
  let httpConfig: string;
  beforeAll(async () => {
    ({ app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false', CONSOLE_TOKEN } }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    ({ port } = app.server.address() as AddressInfo);
    dir = await mkdtemp(path.join(os.tmpdir(), 'amtool-'));
    httpConfig = path.join(dir, 'http.yml');
    await writeFile(httpConfig, `authorization:\n  credentials: ${CONSOLE_TOKEN}\n`);
  });
  afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));
  const amtool = async (...args: string[]) => {
    const { stdout } = await run(AMTOOL, [
      `--alertmanager.url=http://127.0.0.1:${port}/api/v1/alertmanager`,
      `--http.config.file=${httpConfig}`,
      ...args,
    ]);
    return stdout.trim();
  };

  it('adds a silence that mutes, queries it, and expires it', async () => {
    const id = await amtool(
      'silence',
      'add',
      'alertname=AmtoolMuted',
      'namespace=~"sh.p"',
      '--author=amtool-user',
      '--comment=planned maintenance',
      '--duration=1h',
    );
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const alert = { ...maintenanceAlert, alert_name: 'AmtoolMuted', target_resource: 'amtool-1' };
    expect((await postAlert(app, alert)).json()).toMatchObject({
      status: 'silenced',
      silence_id: id,
    });

    const quiet = await amtool('silence', 'query', '--quiet', 'alertname=AmtoolMuted');
    expect(quiet.split('\n')).toEqual([id]);
    const listed = JSON.parse(await amtool('-o', 'json', 'silence', 'query'));
    expect(listed).toEqual([
      expect.objectContaining({
        id,
        createdBy: 'amtool-user',
        comment: 'planned maintenance',
        status: { state: 'active' },
        matchers: expect.arrayContaining([
          { name: 'alertname', value: 'AmtoolMuted', isRegex: false, isEqual: true },
          { name: 'namespace', value: 'sh.p', isRegex: true, isEqual: true },
        ]),
      }),
    ]);

    await amtool('silence', 'expire', id);
    expect(await amtool('silence', 'query', '--quiet')).toBe('');
    expect((await amtool('silence', 'query', '--expired', '--quiet')).split('\n')).toEqual([id]);
    expect((await postAlert(app, alert)).json().status).toBe('created');
  });

  it('reads the URL and the token file from amtool.yml, as the README shows', async () => {
    const home = path.join(dir, 'home');
    await mkdir(path.join(home, '.config/prometheus'), { recursive: true });
    await writeFile(
      path.join(home, '.config/prometheus/amtool.yml'),
      `alertmanager.url: http://127.0.0.1:${port}/api/v1/alertmanager\nhttp.config.file: ${httpConfig}\n`,
    );
    const env = { ...process.env, HOME: home };
    const added = await run(
      AMTOOL,
      ['silence', 'add', 'alertname=FromConfig', '--comment=config file'],
      { env },
    );
    const id = added.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await run(AMTOOL, ['silence', 'expire', id], { env });
  });

  it('is refused without the token, as the read API is', async () => {
    const failed = run(AMTOOL, [
      `--alertmanager.url=http://127.0.0.1:${port}/api/v1/alertmanager`,
      'silence',
      'query',
    ]);
    await expect(failed).rejects.toThrow();
  });
});
