import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../src/adapters/executors/create-executor.js';
import {
  createDryRunExecutor,
  formatCommandLine,
} from '../../src/adapters/executors/dry-run-executor.js';
import { capOutput, createKubectlExecutor } from '../../src/adapters/executors/kubectl-executor.js';
import { writeStandInKubectl } from './stand-in-kubectl.js';

const dir = mkdtempSync(join(tmpdir(), 'kubectl-stand-in-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const signal = () => new AbortController().signal;

describe('dry-run executor', () => {
  it('records the command line and changes nothing', async () => {
    const executor = createDryRunExecutor({ context: 'prod-eu' });
    expect(executor).toMatchObject({ name: 'dry-run', changesState: false });
    const result = await executor.run(
      {
        id: 'restart',
        description: 'd',
        args: ['rollout', 'restart', 'deployment/api', '--namespace=shop'],
      },
      signal(),
    );
    expect(result).toEqual({
      step_id: 'restart',
      success: true,
      simulated: true,
      output: 'kubectl --context prod-eu rollout restart deployment/api --namespace=shop',
    });
  });

  it.each([
    [undefined, ['get', 'pods'], 'kubectl get pods'],
    ['ctx', ['--patch={"a":1}'], `kubectl --context ctx '--patch={"a":1}'`],
    ['ctx', ["it's"], `kubectl --context ctx 'it'\\''s'`],
  ])('quotes what a shell would split: %s %j', (context, args, line) => {
    expect(formatCommandLine(context, args)).toBe(line);
  });
});

describe('kubectl executor with a stand-in kubectl', () => {
  const standIn = writeStandInKubectl(dir);

  it('runs kubectl --context <ctx> <args> without a shell', async () => {
    const executor = createKubectlExecutor({ context: 'prod-eu', binary: standIn.binary });
    expect(executor).toMatchObject({ name: 'kubectl', changesState: true });
    const args = ['rollout', 'restart', 'deployment/api', '--namespace=shop', '$(touch pwned) *'];
    const result = await executor.run({ id: 'restart', description: 'd', args }, signal());
    expect(result).toMatchObject({ step_id: 'restart', success: true, simulated: false });
    expect(result.output).toContain('ok: --context prod-eu rollout restart');
    expect(standIn.calls().at(-1)).toEqual(['--context', 'prod-eu', ...args]);
  });

  it('fails on a non-zero exit with stderr and the exit code', async () => {
    const executor = createKubectlExecutor({ context: 'c', binary: standIn.binary });
    const result = await executor.run({ id: 'boom', description: 'd', args: ['fail'] }, signal());
    expect(result.success).toBe(false);
    expect(result.output).toContain('error: step failed on purpose');
    expect(result.output).toContain('exit code 1');
  });

  it('kills a step at its timeout', async () => {
    const executor = createKubectlExecutor({
      context: 'c',
      binary: standIn.binary,
      timeoutMs: 200,
    });
    const started = Date.now();
    const result = await executor.run({ id: 'slow', description: 'd', args: ['slow'] }, signal());
    expect(result.success).toBe(false);
    expect(result.output).toContain('timed out after 200 ms');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('honours the abort signal', async () => {
    const executor = createKubectlExecutor({ context: 'c', binary: standIn.binary });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await executor.run(
      { id: 'slow', description: 'd', args: ['slow'] },
      controller.signal,
    );
    expect(result).toMatchObject({ success: false, output: 'aborted' });
    const before = await executor.run(
      { id: 'x', description: 'd', args: ['get'] },
      controller.signal,
    );
    expect(before).toMatchObject({ success: false, output: 'aborted before start' });
  });

  it('reports a missing binary as a failed step', async () => {
    const executor = createKubectlExecutor({ context: 'c', binary: join(dir, 'absent') });
    const result = await executor.run({ id: 'x', description: 'd', args: ['get'] }, signal());
    expect(result.success).toBe(false);
    expect(result.output).toMatch(/cannot run .*absent.*ENOENT/);
  });

  it('finds kubectl on PATH by default (REPAIR_EXECUTOR=kubectl)', async () => {
    const saved = process.env.PATH;
    process.env.PATH = `${dir}${delimiter}${saved}`;
    try {
      const executor = createExecutor({ repairExecutor: 'kubectl', kubectlContext: 'staging' });
      const result = await executor.run(
        { id: 'get', description: 'd', args: ['get', 'pods'] },
        signal(),
      );
      expect(result.success).toBe(true);
      expect(standIn.calls().at(-1)).toEqual(['--context', 'staging', 'get', 'pods']);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('keeps the tail of long output', () => {
    expect(capOutput('abcdef', 4)).toBe('…def');
    expect(capOutput('abc', 4)).toBe('abc');
  });
});

describe('createExecutor', () => {
  it('chooses by REPAIR_EXECUTOR', () => {
    expect(createExecutor({ repairExecutor: 'dry-run' }).name).toBe('dry-run');
    expect(createExecutor({ repairExecutor: 'kubectl', kubectlContext: 'c' }).name).toBe('kubectl');
    expect(() => createExecutor({ repairExecutor: 'kubectl' })).toThrow(/KUBECTL_CONTEXT/);
  });
});
