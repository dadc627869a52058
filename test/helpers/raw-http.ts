import net from 'node:net';

/** A raw TCP connection that records what the server sent and when it closed. */
export interface RawConnection {
  socket: net.Socket;
  /** Everything received so far, as text. */
  received(): string;
  /** Resolves with the milliseconds from connect to the server closing (or resetting). */
  closed: Promise<number>;
  /** True once the server closed or reset the connection. */
  isClosed(): boolean;
}

/** Connects to `port` on 127.0.0.1, from `localAddress` when given (another loopback address). */
export function rawConnect(port: number, localAddress?: string): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    const started = Date.now();
    let text = '';
    let ended = false;
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    const closed = new Promise<number>((done) => {
      socket.on('close', () => {
        ended = true;
        done(Date.now() - started);
      });
    });
    socket.on('error', () => undefined);
    socket.once('connect', () =>
      resolve({ socket, received: () => text, closed, isClosed: () => ended }),
    );
    socket.once('error', reject);
  });
}

/** Resolves once `connection` has received `text`, or rejects after `timeoutMs`. */
export async function receivedText(
  connection: RawConnection,
  text: string,
  timeoutMs = 5000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!connection.received().includes(text)) {
    if (Date.now() > deadline) {
      throw new Error(`did not receive ${JSON.stringify(text)}: ${connection.received()}`);
    }
    if (connection.isClosed()) throw new Error(`closed without ${JSON.stringify(text)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return connection.received();
}

/** Resolves with the close time, or rejects when the connection is still open after `ms`. */
export function closedWithin(connection: RawConnection, ms: number): Promise<number> {
  return Promise.race([
    connection.closed,
    new Promise<number>((_, reject) =>
      setTimeout(() => reject(new Error(`connection still open after ${ms} ms`)), ms),
    ),
  ]);
}
