import pino from 'pino';
import { afterEach, expect, test } from 'vitest';
import { type Check, type OpsServer, startOpsServer, timedCheck } from '../../src/ops/index.ts';

const logger = pino({ level: 'silent' });
let server: OpsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(ready: () => Promise<Check[]>, metrics = async () => 'm 1\n') {
  server = await startOpsServer({
    port: 0,
    host: '127.0.0.1',
    logger,
    probes: {
      ready,
      metrics: async () => ({ contentType: 'text/plain; version=0.0.4', body: await metrics() }),
    },
  });
  return (path: string, method = 'GET') =>
    fetch(`http://127.0.0.1:${server?.port}${path}`, { method });
}

test.each([
  { checks: [{ name: 'discord', ok: true }], status: 200, ready: true },
  {
    checks: [
      { name: 'discord', ok: true },
      { name: 'store', ok: false, detail: 'no answer within 2000 ms' },
    ],
    status: 503,
    ready: false,
  },
  { checks: [{ name: 'discord', ok: false }], status: 503, ready: false },
])('/readyz answers $status when the checks are $checks', async ({ checks, status, ready }) => {
  const get = await serve(async () => checks);
  const response = await get('/readyz');
  expect(response.status).toBe(status);
  expect(await response.json()).toEqual({
    ready,
    checks: checks.map(({ name, ok }) => ({ name, ok })),
  });
  expect((await get('/healthz')).status).toBe(200);
});

test('/readyz shows a status per check, never why one failed (store addresses, errors): that goes to the log', async () => {
  const lines: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
  server = await startOpsServer({
    port: 0,
    host: '127.0.0.1',
    logger: log,
    probes: {
      ready: async () => [
        { name: 'discord', ok: true },
        { name: 'store', ok: false, detail: 'connect ECONNREFUSED 10.1.2.3:6379 (redis://cache)' },
        { name: 'shard 1', ok: false, detail: 'no answer within 2000 ms' },
      ],
      metrics: async () => ({ contentType: 'text/plain', body: '' }),
    },
  });
  const get = () => fetch(`http://127.0.0.1:${server?.port}/readyz`);
  const response = await get();
  expect(response.status).toBe(503);
  const body = await response.text();
  expect(JSON.parse(body)).toEqual({
    ready: false,
    checks: [
      { name: 'discord', ok: true },
      { name: 'store', ok: false },
      { name: 'shard 1', ok: false },
    ],
  });
  expect(body).not.toMatch(/10\.1\.2\.3|6379|redis|ECONNREFUSED|2000 ms/);
  // The operator still learns why, once while it stays the same.
  await get();
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain('ECONNREFUSED 10.1.2.3:6379');
});

test.each([
  { path: '/metrics', method: 'GET', status: 200 },
  { path: '/healthz', method: 'HEAD', status: 200 },
  { path: '/nothing', method: 'GET', status: 404 },
  { path: '/metrics', method: 'POST', status: 405 },
])('$method $path answers $status', async ({ path, method, status }) => {
  const get = await serve(async () => []);
  expect((await get(path, method)).status).toBe(status);
});

test('a probe that throws answers 500 without its message, and the server keeps serving', async () => {
  const get = await serve(
    async () => [],
    async () => {
      throw new Error('secret detail');
    },
  );
  const response = await get('/metrics');
  expect(response.status).toBe(500);
  expect(await response.text()).not.toContain('secret');
  expect((await get('/healthz')).status).toBe(200);
});

test.each([
  { label: 'passes', check: async () => 'PONG', expected: { name: 'x', ok: true } },
  {
    label: 'fails',
    check: async () => {
      throw new Error('refused');
    },
    expected: { name: 'x', ok: false, detail: 'refused' },
  },
  {
    label: 'hangs',
    check: () => new Promise(() => undefined),
    expected: { name: 'x', ok: false, detail: 'no answer within 50 ms' },
  },
])('timedCheck: a check that $label', async ({ check, expected }) => {
  expect(await timedCheck('x', check, 50)).toEqual(expected);
});
