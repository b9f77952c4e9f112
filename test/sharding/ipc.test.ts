import { EventEmitter } from 'node:events';
import { expect, test } from 'vitest';
import { answerManager, askShard, type IpcPort } from '../../src/sharding/ipc.ts';

/** Two connected ends of an in-memory channel, delivering asynchronously like IPC. */
function channel(): [IpcPort, IpcPort] {
  const [a, b] = [new EventEmitter(), new EventEmitter()];
  const end = (self: EventEmitter, other: EventEmitter): IpcPort => ({
    send: (message) => setImmediate(() => other.emit('message', structuredClone(message))),
    on: (event, listener) => self.on(event, listener),
    off: (event, listener) => self.off(event, listener),
  });
  return [end(a, b), end(b, a)];
}

test('the manager gets each answer to its own question, even when asked at once', async () => {
  const [manager, shard] = channel();
  answerManager(shard, async (question) => (question === 'metrics' ? [{ name: 'm' }] : 'ready'));
  const [metrics, ready] = await Promise.all([
    askShard(manager, 'metrics', 1000),
    askShard(manager, 'ready', 1000),
  ]);
  expect(metrics).toEqual([{ name: 'm' }]);
  expect(ready).toBe('ready');
});

test('a failing answer rejects with its message; a shard that does not answer times out', async () => {
  const [manager, shard] = channel();
  const stop = answerManager(shard, async () => {
    throw new Error('registry broke');
  });
  await expect(askShard(manager, 'metrics', 1000)).rejects.toThrow('registry broke');
  stop();
  await expect(askShard(manager, 'metrics', 50)).rejects.toThrow(
    /no answer to "metrics" within 50 ms/,
  );
});

test('other messages on the channel (discord.js internals) are ignored', async () => {
  const [manager, shard] = channel();
  let asked = 0;
  answerManager(shard, async () => ++asked);
  manager.send({ _eval: '1 + 1' });
  manager.send(null);
  expect(await askShard(manager, 'ready', 1000)).toBe(1);
});

test('a shard that cannot be sent to (down) fails at once', async () => {
  const port: IpcPort = {
    send: () => Promise.reject(new Error('shard is not running')),
    on: () => undefined,
    off: () => undefined,
  };
  await expect(askShard(port, 'ready', 10_000)).rejects.toThrow('shard is not running');
});
