import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnalyzer } from '../../src/adapters/analyzers/create-analyzer.js';
import {
  chatCompletionsUrl,
  createOpenAiAnalyzer,
  DEFAULT_LLM_MODEL,
} from '../../src/adapters/analyzers/openai-analyzer.js';
import { errorContext, frame } from './error-contexts.js';

/** A small OpenAI-compatible chat-completions server on loopback that records each request. */
interface Recorded {
  method: string;
  path: string;
  authorization: string | undefined;
  body: {
    model: string;
    messages: { role: string; content: string }[];
    response_format: unknown;
    temperature: number;
  };
}

type Reply = (res: ServerResponse) => void;

const recorded: Recorded[] = [];
let reply: Reply = () => {};
let server: Server;
let baseUrl: string;

function chatReply(content: string): Reply {
  return (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      }),
    );
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = await readBody(req);
    recorded.push({
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: req.headers.authorization,
      body: JSON.parse(body),
    });
    reply(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

beforeEach(() => {
  recorded.length = 0;
});

const context = errorContext({
  platform: 'python',
  type: 'KeyError',
  value: "'user_id'",
  frames: [frame('app/orders.py', 'place_order', 42, "uid = payload['user_id']")],
});
const signal = () => new AbortController().signal;

const GOOD = {
  root_cause: "The payload lacks 'user_id' at app/orders.py:42.",
  impact: 'Orders without a user fail.',
  fix_suggestion: "Use payload.get('user_id') and validate.",
  prevention: 'Validate payloads with a schema.',
  confidence: 0.82,
};

describe('openai analyzer against an OpenAI-compatible server', () => {
  it('posts the context to /chat/completions and returns the validated analysis', async () => {
    reply = chatReply(JSON.stringify(GOOD));
    const analyzer = createOpenAiAnalyzer({ baseUrl, apiKey: 'sk-test', model: 'tiny-model' });
    expect(analyzer.provider).toBe('openai:tiny-model');

    const analysis = await analyzer.analyze(context, signal());

    expect(analysis).toEqual({ ...GOOD, analyzed_by: 'openai:tiny-model' });
    expect(recorded).toHaveLength(1);
    const [request] = recorded;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.authorization).toBe('Bearer sk-test');
    expect(request?.body.model).toBe('tiny-model');
    expect(request?.body.response_format).toEqual({ type: 'json_object' });
    expect(request?.body.temperature).toBe(0);
    expect(request?.body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(JSON.parse(request?.body.messages[1]?.content ?? '')).toEqual(context);
  });

  it('sends no Authorization header without a key and uses the default model', async () => {
    reply = chatReply(JSON.stringify(GOOD));
    const analyzer = createOpenAiAnalyzer({ baseUrl: `${baseUrl}/` });
    const analysis = await analyzer.analyze(context, signal());
    expect(analysis.analyzed_by).toBe(`openai:${DEFAULT_LLM_MODEL}`);
    expect(recorded[0]?.authorization).toBeUndefined();
    expect(recorded[0]?.body.model).toBe(DEFAULT_LLM_MODEL);
    expect(recorded[0]?.path).toBe('/v1/chat/completions');
  });

  it.each([
    { name: 'a fraction', confidence: 0.4, expected: 0.4 },
    { name: 'a percentage number', confidence: 87, expected: 0.87 },
    { name: 'a percentage string', confidence: '87%', expected: 0.87 },
    { name: 'a numeric string', confidence: '0.3', expected: 0.3 },
    { name: 'a value above 100', confidence: 250, expected: 1 },
    { name: 'a negative value', confidence: -0.2, expected: 0 },
  ])('reads confidence given as $name', async ({ confidence, expected }) => {
    reply = chatReply(JSON.stringify({ ...GOOD, confidence }));
    const analysis = await createOpenAiAnalyzer({ baseUrl }).analyze(context, signal());
    expect(analysis.confidence).toBeCloseTo(expected, 10);
  });

  it('accepts JSON wrapped in a code fence by servers that ignore response_format', async () => {
    reply = chatReply(`\`\`\`json\n${JSON.stringify(GOOD)}\n\`\`\``);
    const analysis = await createOpenAiAnalyzer({ baseUrl }).analyze(context, signal());
    expect(analysis.root_cause).toBe(GOOD.root_cause);
  });

  it.each([
    {
      name: 'content that is not JSON',
      content: 'The root cause is a missing key.',
      why: 'content is not JSON',
    },
    { name: 'a JSON array', content: '[1, 2]', why: 'content is not a JSON object' },
    {
      name: 'a missing field',
      content: JSON.stringify({ ...GOOD, prevention: undefined }),
      why: '"prevention" must be a non-empty string',
    },
    {
      name: 'an empty field',
      content: JSON.stringify({ ...GOOD, impact: '  ' }),
      why: '"impact" must be a non-empty string',
    },
    {
      name: 'a non-numeric confidence',
      content: JSON.stringify({ ...GOOD, confidence: 'high' }),
      why: '"confidence" must be a number',
    },
    {
      name: 'a missing confidence',
      content: JSON.stringify({ ...GOOD, confidence: undefined }),
      why: '"confidence" must be a number',
    },
  ])('rejects $name', async ({ content, why }) => {
    reply = chatReply(content);
    await expect(createOpenAiAnalyzer({ baseUrl }).analyze(context, signal())).rejects.toThrow(
      `LLM response is not a valid analysis: ${why}`,
    );
  });

  it('rejects a response without choices', async () => {
    reply = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'chat.completion', choices: [] }));
    };
    await expect(createOpenAiAnalyzer({ baseUrl }).analyze(context, signal())).rejects.toThrow(
      'LLM response is not a valid analysis: no choices[0].message.content',
    );
  });

  it('rejects HTTP 500 with the status and an excerpt of the body', async () => {
    reply = (res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'model overloaded', type: 'server_error' } }));
    };
    await expect(createOpenAiAnalyzer({ baseUrl }).analyze(context, signal())).rejects.toThrow(
      /^LLM request failed: HTTP 500: .*model overloaded/,
    );
  });

  it('stops waiting when the signal aborts on a slow server', async () => {
    reply = (res) => {
      const timer = setTimeout(() => chatReply(JSON.stringify(GOOD))(res), 5_000);
      res.on('close', () => clearTimeout(timer));
    };
    const started = Date.now();
    const analysis = createOpenAiAnalyzer({ baseUrl }).analyze(context, AbortSignal.timeout(100));
    await expect(analysis).rejects.toThrow(/abort|timeout/i);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('chatCompletionsUrl', () => {
  it.each([
    ['https://api.openai.com/v1', 'https://api.openai.com/v1/chat/completions'],
    ['https://api.openai.com/v1/', 'https://api.openai.com/v1/chat/completions'],
    ['http://localhost:11434/v1', 'http://localhost:11434/v1/chat/completions'],
    ['https://llm.internal/v1/chat/completions', 'https://llm.internal/v1/chat/completions'],
  ])('%s -> %s', (base, expected) => {
    expect(chatCompletionsUrl(base)).toBe(expected);
  });
});

describe('createAnalyzer', () => {
  it('builds the rules analyzer by default', () => {
    expect(createAnalyzer({ analyzer: 'rules' }).provider).toBe('rules');
  });

  it('builds the OpenAI analyzer with the configured model', () => {
    const config = { analyzer: 'openai', llmBaseUrl: baseUrl, llmModel: 'llama3.1:8b' } as const;
    expect(createAnalyzer(config).provider).toBe('openai:llama3.1:8b');
    expect(createAnalyzer({ ...config, llmModel: undefined }).provider).toBe(
      `openai:${DEFAULT_LLM_MODEL}`,
    );
  });

  it('refuses openai without a base URL', () => {
    expect(() => createAnalyzer({ analyzer: 'openai' })).toThrow('LLM_BASE_URL');
  });
});
