import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createReadbackFiles } from '../../src/features/readbacks/readback-files.js';
import { etagMatches } from '../../src/features/readbacks/readback-routes.js';
import type { TestApp } from '../helpers/build-app.js';
import { startUpstream } from '../helpers/upstreams.js';
import { AGENTS, readbackApp, readbackDir, removeDoc, writeDoc } from './readback-helpers.js';

describe('committed documents are read at request time, cached by version', () => {
  it('parses and redacts once per version, and serves a new version at once', () => {
    const dir = readbackDir();
    const files = createReadbackFiles(dir);
    writeDoc(dir, 'doc', { v: 1, host: 'a.internal' });
    const first = files.load('doc');
    const again = files.load('doc');
    expect(first.status).toBe('present');
    expect(again).toBe(first);
    if (first.status !== 'present') return;
    expect(first.committed.redacted()).toBe(first.committed.redacted());
    expect(first.committed.redacted().document).toEqual({ v: 1, host: '[redacted-host]' });

    writeDoc(dir, 'doc', { v: 22, host: 'a.internal' });
    const next = files.load('doc');
    expect(next).not.toBe(first);
    expect(next.status === 'present' && next.committed.document.v).toBe(22);

    // a rename of a same-size file still changes the inode
    const tmp = path.join(dir, 'tmp.json');
    fs.writeFileSync(tmp, JSON.stringify({ v: 33, host: 'a.internal' }));
    fs.renameSync(tmp, path.join(dir, 'doc.json'));
    const renamed = files.load('doc');
    expect(renamed.status === 'present' && renamed.committed.document.v).toBe(33);

    removeDoc(dir, 'doc');
    expect(files.load('doc')).toEqual({ status: 'missing' });
  });

  it('matches strong, weak and listed ETags', () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('W/"abc"', '"abc"')).toBe(true);
    expect(etagMatches('"zzz", "abc"', '"abc"')).toBe(true);
    expect(etagMatches('*', '"abc"')).toBe(true);
    expect(etagMatches('"zzz"', '"abc"')).toBe(false);
    expect(etagMatches(undefined, '"abc"')).toBe(false);
  });
});

describe('ETag and 304 over HTTP', () => {
  const dir = readbackDir();
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await readbackApp({ dir }));
  });
  const url = `${AGENTS}/agent-report-status-board`;
  const raw = `${AGENTS}/agent-operation-permission-model`;

  it('answers 304 for the current ETag and 200 with a new one after a commit', async () => {
    writeDoc(dir, 'agent-report-status-board', { board: 'v1', at: '10.0.0.1' });
    const first = await app.inject(url);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const cached = await app.inject({ url, headers: { 'if-none-match': etag } });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe('');
    writeDoc(dir, 'agent-report-status-board', { board: 'v2 changed', at: '10.0.0.1' });
    const changed = await app.inject({ url, headers: { 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.json()).toEqual({ board: 'v2 changed', at: '[redacted-ip]' });
  });

  it('the ETag is the hash of the bytes served: RAW and redacted differ for the same content', async () => {
    writeDoc(dir, 'agent-operation-permission-model', { at: '10.0.0.1' });
    writeDoc(dir, 'agent-report-status-board', { at: '10.0.0.1' });
    const rawAnswer = await app.inject(raw);
    const redacted = await app.inject(url);
    expect(rawAnswer.body).toBe('{"at":"10.0.0.1"}');
    expect(rawAnswer.headers.etag).not.toBe(redacted.headers.etag);
    expect(
      (
        await app.inject({
          url: raw,
          headers: { 'if-none-match': rawAnswer.headers.etag as string },
        })
      ).statusCode,
    ).toBe(304);
  });

  it('live readbacks carry an ETag of their answer too', async () => {
    const live = await app.inject(`${AGENTS}/agent-report-source-health`);
    expect(live.statusCode).toBe(200);
    expect(live.headers.etag).toBeDefined();
  });
});

describe('composed committed readbacks', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  const dir = readbackDir();
  let app: TestApp['app'];
  beforeAll(async () => {
    upstream = await startUpstream(() => ({ body: { ok: true } }));
    ({ app } = await readbackApp({ dir }));
  });

  it('delivery-closure-workbench merges its six sources, marking each present, missing or invalid', async () => {
    writeDoc(dir, 'delivery-closure-workbench', { title: 'Workbench', owner: 'ops@build.corp' });
    writeDoc(dir, 'platform-status-cleanup-dashboard', { cleanup: ['old-gw.lan'] });
    writeDoc(dir, 'private-git-inventory', { repos: 2 });
    writeDoc(dir, 'delivery-runner-readiness', '{broken');
    const body = (await app.inject(`${AGENTS}/delivery-closure-workbench`)).json();
    expect(body.title).toBe('Workbench');
    expect(body.owner).toBe('ops@[redacted-host]');
    expect(body.composed_sources.cleanup).toEqual({
      readback: 'platform-status-cleanup-dashboard',
      status: 'present',
      document: { cleanup: ['[redacted-host]'] },
    });
    expect(body.composed_sources.private_git_inventory.status).toBe('present');
    expect(body.composed_sources.runner).toEqual({
      readback: 'delivery-runner-readiness',
      status: 'invalid',
    });
    expect(body.composed_sources.delivery_baseline).toEqual({
      readback: 'p0-cicd-baseline-source-readiness',
      status: 'missing',
    });
    expect(body.composed_sources_summary).toEqual({
      total: 6,
      present: 2,
      not_present: [
        { role: 'delivery_baseline', status: 'missing' },
        { role: 'runner', status: 'invalid' },
        { role: 'runtime_surface', status: 'missing' },
        { role: 'backup_dr', status: 'missing' },
      ],
    });
  });

  it('reboot-auto-recovery-slo-scorecard merges bundle backup and the live public-API runtime readback', async () => {
    writeDoc(dir, 'reboot-auto-recovery-slo-scorecard', { slo_minutes: 10 });
    writeDoc(dir, 'bundle-backup-readback', { last_bundle: '2026-11-20' });
    writeDoc(dir, 'marketdata-public-api-runtime-readback', {
      probes: [
        { id: 'health', kind: 'health', url: `${upstream.url}/healthz`, expect: { status: 200 } },
      ],
    });
    const body = (await app.inject(`${AGENTS}/reboot-auto-recovery-slo-scorecard`)).json();
    expect(body.slo_minutes).toBe(10);
    expect(body.composed_sources.bundle_backup.status).toBe('present');
    const runtime = body.composed_sources.public_api_runtime;
    expect(runtime.status).toBe('present');
    expect(runtime.document.status).toBe('healthy');
    expect(runtime.document.probes[0].url).toBe('http://[redacted-ip]/healthz');
  });

  it('the base document is still required: 404 without it', async () => {
    removeDoc(dir, 'reboot-auto-recovery-slo-scorecard');
    expect((await app.inject(`${AGENTS}/reboot-auto-recovery-slo-scorecard`)).statusCode).toBe(404);
  });
});
