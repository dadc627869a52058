import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { addressListMatcher, ipAddressIn } from '../../src/http/client-address.js';
import { buildTestApp, type TestApp } from '../helpers/build-app.js';
import { startServerProcess } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * CONTRACT, Under races, crashes and abuse: TRUST_PROXY makes the client address the one
 * those proxies forward in `X-Forwarded-For`, so that behind a proxy each client is
 * throttled and logged on its own; a forwarded address from anyone else is ignored.
 */

const CONSOLE_TOKEN = 'console-token-0123456789';
const ENV = { CONSOLE_TOKEN, SIGNAL_CONSUMER: 'false' };

function readApi(test: TestApp, token: string, from: string, forwardedFor?: string) {
  return test.app.inject({
    method: 'GET',
    url: '/api/v1/incidents',
    remoteAddress: from,
    headers: {
      authorization: `Bearer ${token}`,
      ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }),
    },
  });
}

async function tenWrong(test: TestApp, from: string, forwardedFor: (attempt: number) => string) {
  for (let attempt = 0; attempt < 10; attempt++) {
    const answer = await readApi(test, `wrong-${attempt}`, from, forwardedFor(attempt));
    expect(answer.statusCode).toBe(401);
  }
}

describe('X-Forwarded-For', () => {
  it('without TRUST_PROXY a forged X-Forwarded-For is ignored: the address is locked out whatever it forwards', async () => {
    const test = await buildTestApp({ env: ENV });
    await tenWrong(test, '127.0.0.1', (attempt) => `203.0.113.${attempt + 1}`);
    expect((await readApi(test, CONSOLE_TOKEN, '127.0.0.1', '203.0.113.200')).statusCode).toBe(429);
    expect((await readApi(test, CONSOLE_TOKEN, '127.0.0.1')).statusCode).toBe(429);
  });

  it('from a trusted proxy it separates the lockouts of the clients it forwards', async () => {
    const test = await buildTestApp({ env: { ...ENV, TRUST_PROXY: '10.0.0.1' } });
    await tenWrong(test, '10.0.0.1', () => '203.0.113.5');
    expect((await readApi(test, CONSOLE_TOKEN, '10.0.0.1', '203.0.113.5')).statusCode).toBe(429);
    // Another client behind the same proxy is not locked out, nor the proxy's own requests.
    expect((await readApi(test, CONSOLE_TOKEN, '10.0.0.1', '203.0.113.6')).statusCode).toBe(200);
    expect((await readApi(test, CONSOLE_TOKEN, '10.0.0.1')).statusCode).toBe(200);
    // A client cannot step out of its lockout by adding addresses in front of its own.
    const prepended = await readApi(test, CONSOLE_TOKEN, '10.0.0.1', '198.51.100.1, 203.0.113.5');
    expect(prepended.statusCode).toBe(429);
  });

  it('takes CIDR ranges; from an address outside them the forwarded address is ignored', async () => {
    const test = await buildTestApp({ env: { ...ENV, TRUST_PROXY: '10.0.0.0/8, fd00::/8' } });
    // An untrusted address forging a victim's address locks out itself, not the victim.
    await tenWrong(test, '192.0.2.1', () => '203.0.113.5');
    expect((await readApi(test, CONSOLE_TOKEN, '192.0.2.1', '203.0.113.77')).statusCode).toBe(429);
    expect((await readApi(test, CONSOLE_TOKEN, '10.20.30.40', '203.0.113.5')).statusCode).toBe(200);
    // The victim's own lockout behind a trusted proxy in the range is its own.
    await tenWrong(test, 'fd00::1', () => '203.0.113.9');
    expect((await readApi(test, CONSOLE_TOKEN, '10.9.9.9', '203.0.113.9')).statusCode).toBe(429);
    expect((await readApi(test, CONSOLE_TOKEN, '10.9.9.9', '203.0.113.10')).statusCode).toBe(200);
  });

  it('a failed credential behind a trusted proxy is logged with the forwarded client address', async () => {
    const server = await startServerProcess({
      ...ENV,
      PORT: '0',
      LOG_LEVEL: 'info',
      APP_ENV: 'staging',
      TRUST_PROXY: '127.0.0.1',
    });
    await fetch(`${server.url}/api/v1/incidents`, {
      headers: { authorization: 'Bearer wrong-token', 'x-forwarded-for': '203.0.113.42' },
    });
    await waitFor(async () => (server.output().includes('failed credential') ? true : undefined), {
      timeoutMs: 5000,
      what: 'the failed credential line',
    });
    const line = server
      .output()
      .split('\n')
      .find((text) => text.includes('failed credential'));
    expect(JSON.parse(line!)).toMatchObject({
      client: '203.0.113.42',
      credential: 'console token',
    });
  });

  it('a forwarded address with a port is the same client whatever its port: no new lockout per connection', async () => {
    const test = await buildTestApp({ env: { ...ENV, TRUST_PROXY: '10.0.0.1' } });
    await tenWrong(test, '10.0.0.1', (attempt) => `203.0.113.5:${40_000 + attempt}`);
    expect((await readApi(test, CONSOLE_TOKEN, '10.0.0.1', '203.0.113.5:50000')).statusCode).toBe(
      429,
    );
    expect((await readApi(test, CONSOLE_TOKEN, '10.0.0.1', '203.0.113.5')).statusCode).toBe(429);
    await tenWrong(test, '10.0.0.1', (attempt) => `[2001:DB8::5]:${40_000 + attempt}`);
    expect((await readApi(test, CONSOLE_TOKEN, '10.0.0.1', '2001:db8:0::5')).statusCode).toBe(429);
    expect((await readApi(test, CONSOLE_TOKEN, '10.0.0.1', '203.0.113.6:1234')).statusCode).toBe(
      200,
    );
  });

  it('a forwarded value that is no IP address counts against the proxy itself, not a new client each time', async () => {
    const test = await buildTestApp({ env: { ...ENV, TRUST_PROXY: '10.0.0.1' } });
    await tenWrong(test, '10.0.0.1', (attempt) => `unknown-${attempt}`);
    expect((await readApi(test, CONSOLE_TOKEN, '10.0.0.1', 'unknown-99')).statusCode).toBe(429);
    expect((await readApi(test, CONSOLE_TOKEN, '10.0.0.1', '_hidden')).statusCode).toBe(429);
    expect((await readApi(test, CONSOLE_TOKEN, '10.0.0.1', '203.0.113.6')).statusCode).toBe(200);
  });

  it('client addresses are taken down to their IP address, in one form', () => {
    expect(ipAddressIn('203.0.113.5')).toBe('203.0.113.5');
    expect(ipAddressIn(' 203.0.113.5:41234 ')).toBe('203.0.113.5');
    expect(ipAddressIn('[2001:DB8:0:0::5]:443')).toBe('2001:db8::5');
    expect(ipAddressIn('[203.0.113.5]')).toBe('203.0.113.5');
    expect(ipAddressIn('2001:db8::5')).toBe('2001:db8::5');
    for (const bad of ['unknown', '_hidden', '', 'a|b', '203.0.113.5:x', '[::1', undefined]) {
      expect(ipAddressIn(bad)).toBeUndefined();
    }
  });

  it('TRUST_PROXY entries match addresses, CIDR ranges and IPv4-mapped IPv6 peers', () => {
    const trusted = addressListMatcher(['10.0.0.0/8', '192.0.2.7', 'fd00::/8']);
    expect(trusted('10.1.2.3')).toBe(true);
    expect(trusted('::ffff:10.1.2.3')).toBe(true);
    expect(trusted('192.0.2.7')).toBe(true);
    expect(trusted('fd12::1')).toBe(true);
    expect(trusted('192.0.2.8')).toBe(false);
    expect(trusted('11.0.0.1')).toBe(false);
    expect(trusted(undefined)).toBe(false);
    expect(addressListMatcher([])('10.1.2.3')).toBe(false);
  });

  it('an entry that is not an address or CIDR range stops the start, naming it', () => {
    for (const bad of ['proxy.internal', '10.0.0.0/33', '10.0.0.1/8/2', 'fd00::/129']) {
      expect(() => loadConfig({ TRUST_PROXY: `127.0.0.1, ${bad}` })).toThrow(
        `TRUST_PROXY: "${bad}" is not an IP address or CIDR range`,
      );
    }
    expect(loadConfig({ TRUST_PROXY: ' 127.0.0.1 , ::1, 10.0.0.0/8 ' }).trustProxy).toEqual([
      '127.0.0.1',
      '::1',
      '10.0.0.0/8',
    ]);
    expect(loadConfig({}).trustProxy).toEqual([]);
  });
});
