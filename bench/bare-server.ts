/**
 * The baseline: the least a signed-webhook endpoint can do on `node:http` (read the body,
 * HMAC-SHA256 check in constant time, JSON.parse, small JSON reply). The service's signal
 * path is measured against this, so it deliberately has no framework, schema or storage.
 * A request carrying `errtracker-hook-signature` (the `bare-tracker` run) is checked against
 * that header instead, so the baseline does the tracker's signature work on the tracker's body.
 * Run as a child process by bench/run.ts: `node --import tsx bench/bare-server.ts`.
 */
import http from 'node:http';
import { validSignature, validTrackerSignature } from './lib/signing.js';

const secret = process.env.WEBHOOK_SECRET ?? '';
const port = Number(process.env.PORT ?? 0);
const OK = JSON.stringify({ success: true });

function reply(res: http.ServerResponse, status: number, body: string) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET') return reply(res, 200, '{"ok":true}');
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const tracker = req.headers['errtracker-hook-signature'];
    const valid =
      tracker === undefined
        ? validSignature(secret, req.headers['x-signature-256'], body)
        : validTrackerSignature(secret, tracker, body);
    if (!valid) {
      return reply(res, 401, '{"detail":"HMAC verification failed"}');
    }
    try {
      JSON.parse(body.toString('utf8'));
    } catch {
      return reply(res, 400, '{"detail":"invalid JSON"}');
    }
    reply(res, 200, OK);
  });
});

server.listen(port, '127.0.0.1');
function shutdown() {
  server.close(() => process.exit(0));
  // Idle keep-alive sockets from the load generator would otherwise hold close() open.
  server.closeAllConnections();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
