import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/backends.js';
import { freePort } from '../helpers/private-services.js';
import { REPO_ROOT } from '../helpers/source-files.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * README, Trying it by hand: every `sh` example runs as printed against a service started
 * as the README starts it, except the blocks named in NEEDS_MORE, which say what they need.
 * Two liberties, both outside the blocks: the service listens on a free port (each
 * `127.0.0.1:8080` becomes it) and keeps its state in a temporary directory.
 */
interface Block {
  line: number;
  text: string;
}

const README = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

function shellBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^(\s*)```sh\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && lines[j]!.trim() !== '```'; j += 1)
      body.push(lines[j]!.slice(indent));
    blocks.push({ line: i + 1, text: body.join('\n') });
    i = j;
  }
  return blocks;
}

/** The blocks a started service cannot run alone, by a text each contains: what they need. */
const NEEDS_MORE: Record<string, string> = {
  'npm ci && npm start': 'a clean clone: CI runs these two commands on one',
  setWebhook: "a real bot's token and api.telegram.org",
  createdb: "PostgreSQL's tools and a server at 127.0.0.1:5432",
  'docker compose': 'Docker',
};
const needsMore = (block: Block) => Object.keys(NEEDS_MORE).find((key) => block.text.includes(key));

const blocks = shellBlocks(README);
const startBlock = blocks.find((block) => block.text.includes('npm start   # in one terminal'));
/** The `export` statement of the start block: the values every other block names. */
const exports = startBlock?.text.slice(0, startBlock.text.indexOf('\nRECEIVER_TOKENS=')) ?? '';
/** amtool comes with Debian's prometheus-alertmanager; CI installs it, a laptop may not have it. */
const amtoolMissing = !fs.existsSync('/usr/bin/amtool') && process.env.REQUIRE_SERVICES !== '1';
if (amtoolMissing)
  console.warn('[tests] amtool not installed: the README amtool example is skipped');
const runnable = blocks.filter(
  (block) =>
    block !== startBlock && !needsMore(block) && !(amtoolMissing && block.text.includes('amtool ')),
);

/**
 * Prints each answer's status after its body, so a 4xx shows, as it would to a reader.
 * Quiet (`-sS`) added, as the README's own `curl -sS` lines are.
 */
const CURL_WITH_STATUS = `curl() { command curl -sS -w '\\nHTTP %{http_code}\\n' "$@"; }`;

describe('the README', () => {
  it('has sh examples, and each one is run here or says what it needs', () => {
    expect(startBlock, 'the block that starts the service').toBeDefined();
    expect(exports).toMatch(/^export /);
    expect(runnable.length).toBeGreaterThanOrEqual(6);
    for (const key of Object.keys(NEEDS_MORE)) {
      expect(
        blocks.some((block) => block.text.includes(key)),
        key,
      ).toBe(true);
    }
  });
});

describe('the README examples against a started service', () => {
  let server: ChildProcess;
  let port: number;
  let home: string;
  let output = '';
  beforeAll(async () => {
    port = await freePort();
    home = tempDir('readme-');
    // `npm start` builds first; the built service and the source are the same program.
    const startService = `npm() { [ "$1" = start ] && exec "${process.execPath}" --import tsx "${REPO_ROOT}/src/server.ts"; }`;
    server = spawn('bash', ['-euc', `${startService}\n${startBlock!.text}`], {
      cwd: REPO_ROOT,
      env: { ...bareEnv(), PORT: String(port), DATA_DIR: path.join(home, 'var') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (chunk) => (output += chunk));
    server.stderr!.on('data', (chunk) => (output += chunk));
    await waitFor(
      async () => {
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/readyz`).catch(() => null);
        return response?.ok ? true : undefined;
      },
      { timeoutMs: 60_000, what: 'the service started as the README starts it' },
    );
  }, 90_000);
  afterAll(() => {
    server?.kill('SIGKILL');
  });

  it.each(runnable.map((block) => [block.line, block] as const))(
    'the block at line %i runs as printed',
    async (_line, block) => {
      const script = [
        CURL_WITH_STATUS,
        exports,
        block.text.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`),
      ].join('\n');
      const result = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
        cwd: REPO_ROOT,
        env: { ...bareEnv(), HOME: home },
      }).catch((error: { stdout?: string; stderr?: string; message: string }) => ({
        stdout: error.stdout ?? '',
        stderr: `${error.stderr ?? ''}\n${error.message}\nservice: ${output.slice(-2000)}`,
      }));
      expect(result.stderr).not.toMatch(/Command failed|error|Error/);
      const statuses = [...result.stdout.matchAll(/^HTTP (\d{3})$/gm)].map((match) =>
        Number(match[1]),
      );
      for (const status of statuses) expect(status, result.stdout).toBeLessThan(400);
      for (const answer of printedAnswers(block.text)) {
        expect(result.stdout, `the answer printed at line ${block.line}`).toContain(answer);
      }
    },
    60_000,
  );
});

/** `# {"status":"created",…}` under a command: its first member is what the answer starts with. */
function printedAnswers(text: string): string[] {
  return [...text.matchAll(/^# (\{"\w+":"\w+")/gm)].map((match) => match[1]!);
}

function bareEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^(DATABASE_URL|REDIS_URL|REQUIRE_SERVICES|NODE_ENV|VITEST.*|TEST)$/.test(key))
      delete env[key];
  }
  return env;
}
