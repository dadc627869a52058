/**
 * The readback baseline: plain `node:http` answering every GET with the same bytes the
 * service serves for the benched readback, redacted once at start-up. No framework, no file
 * check, no ETag: the floor for serving a ~200 KB JSON document.
 * Run as a child process by bench/runs/readback-runs.ts: `node --import tsx <this file>`.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { redactDocument } from '../../src/features/readbacks/redaction.js';

const port = Number(process.env.PORT ?? 0);
const document = JSON.parse(readFileSync(process.env.READBACK_FILE ?? '', 'utf8')) as unknown;
const body = Buffer.from(JSON.stringify(redactDocument(document)));

const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});

server.listen(port, '127.0.0.1');
function shutdown() {
  server.close(() => process.exit(0));
  server.closeAllConnections();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
