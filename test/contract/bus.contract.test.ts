import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryBus } from '../../src/adapters/memory/memory-bus.js';
import { createRedisBus } from '../../src/adapters/redis/redis-bus.js';
import type { BusPort } from '../../src/ports/bus.js';
import { makeRedis, redisUrlForTests } from '../helpers/backends.js';

interface BusFixture {
  bus: BusPort;
  /** Another instance on the same backend (another replica), if the bus spans replicas. */
  peer?(): BusPort;
  cleanup(): Promise<void>;
}

interface BusBackend {
  name: string;
  crossReplica: boolean;
  open(): Promise<BusFixture>;
}

const memoryBackend: BusBackend = {
  name: 'memory bus',
  crossReplica: false,
  async open() {
    const bus = createMemoryBus();
    return { bus, cleanup: () => bus.close() };
  },
};

function redisBackend(url: string): BusBackend {
  return {
    name: 'redis bus',
    crossReplica: true,
    async open() {
      const shared = await makeRedis();
      const bus = createRedisBus(shared.redis, shared.prefix);
      const peers: { bus: BusPort; connection: Redis }[] = [];
      return {
        bus,
        peer() {
          const connection = new Redis(url, { enableAutoPipelining: true });
          const peerBus = createRedisBus(connection, shared.prefix);
          peers.push({ bus: peerBus, connection });
          return peerBus;
        },
        async cleanup() {
          await bus.close();
          for (const peer of peers) {
            await peer.bus.close();
            peer.connection.disconnect();
          }
          await shared.cleanup();
        },
      };
    },
  };
}

const redisUrl = redisUrlForTests();
const backends: BusBackend[] = [memoryBackend, ...(redisUrl ? [redisBackend(redisUrl)] : [])];

/** Redis delivers asynchronously: poll until the expectation holds or time runs out. */
async function eventually(check: () => void, timeoutMs = 2000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

function recorder() {
  const got: string[] = [];
  return { got, handler: (message: string) => void got.push(message) };
}

describe.each(backends)('bus contract: $name', (backend) => {
  let fixture: BusFixture;
  let bus: BusPort;

  beforeEach(async () => {
    fixture = await backend.open();
    bus = fixture.bus;
  });

  afterEach(async () => {
    await fixture.cleanup();
  });

  it('reaches every subscriber of the topic and no other topic', async () => {
    const a1 = recorder();
    const a2 = recorder();
    const b = recorder();
    await bus.subscribe('alpha', a1.handler);
    await bus.subscribe('alpha', a2.handler);
    await bus.subscribe('beta', b.handler);

    await bus.publish('alpha', 'for alpha');
    await eventually(() => {
      expect(a1.got).toEqual(['for alpha']);
      expect(a2.got).toEqual(['for alpha']);
    });
    // Published later on one connection, so it arrives later: beta sees only its own.
    await bus.publish('beta', 'for beta');
    await eventually(() => expect(b.got).toEqual(['for beta']));
    expect(a1.got).toEqual(['for alpha']);
  });

  it('stops delivering to a handler once it unsubscribes', async () => {
    const gone = recorder();
    const stays = recorder();
    const unsubscribe = await bus.subscribe('alpha', gone.handler);
    await bus.subscribe('alpha', stays.handler);
    await unsubscribe();
    await unsubscribe();
    await bus.publish('alpha', 'one');
    await eventually(() => expect(stays.got).toEqual(['one']));
    expect(gone.got).toEqual([]);
  });

  it('subscribes again after the last handler of a topic left', async () => {
    const first = recorder();
    const unsubscribe = await bus.subscribe('alpha', first.handler);
    await unsubscribe();
    await bus.publish('alpha', 'nobody listens');
    const second = recorder();
    await bus.subscribe('alpha', second.handler);
    await bus.publish('alpha', 'back again');
    await eventually(() => expect(second.got).toEqual(['back again']));
    expect(first.got).toEqual([]);
  });

  it('keeps delivering to others when a handler throws', async () => {
    const good = recorder();
    await bus.subscribe('alpha', () => {
      throw new Error('handler failure');
    });
    await bus.subscribe('alpha', good.handler);
    await bus.publish('alpha', 'one');
    await bus.publish('alpha', 'two');
    await eventually(() => expect(good.got).toEqual(['one', 'two']));
  });

  it('preserves the order of one publisher', async () => {
    const got = recorder();
    await bus.subscribe('alpha', got.handler);
    const sent = Array.from({ length: 200 }, (_, n) => `m${n}`);
    await Promise.all(sent.map((message) => bus.publish('alpha', message)));
    await eventually(() => expect(got.got).toEqual(sent));
  });

  it('refuses to publish or subscribe once closed', async () => {
    await bus.close();
    await expect(bus.publish('alpha', 'late')).rejects.toThrow(/closed/);
    await expect(bus.subscribe('alpha', () => {})).rejects.toThrow(/closed/);
  });

  it.runIf(backend.crossReplica)('delivers messages published by another replica', async () => {
    const other = fixture.peer!();
    const got = recorder();
    const heard = recorder();
    await bus.subscribe('alpha', got.handler);
    await other.subscribe('alpha', heard.handler);
    await other.publish('alpha', 'from the other replica');
    await bus.publish('alpha', 'from this replica');
    await eventually(() => {
      expect(got.got).toContain('from the other replica');
      expect(got.got).toContain('from this replica');
      expect(heard.got).toContain('from this replica');
    });
  });
});
