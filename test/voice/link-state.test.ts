import { describe, expect, test } from 'vitest';
import {
  DEFAULT_RECONNECT_POLICY,
  type DisconnectCause,
  type LinkEvent,
  type LinkState,
  nextLinkState,
  reconnectPlan,
} from '../../src/voice/index.ts';

describe('nextLinkState', () => {
  test.each<[LinkState, LinkEvent, LinkState | undefined]>([
    ['joining', 'connecting', 'joining'],
    ['joining', 'ready', 'ready'],
    ['joining', 'lost', 'reconnecting'],
    ['joining', 'leave', 'leaving'],
    ['joining', 'destroyed', undefined],
    ['ready', 'connecting', 'joining'],
    ['ready', 'lost', 'reconnecting'],
    ['ready', 'leave', 'leaving'],
    ['reconnecting', 'connecting', 'joining'],
    ['reconnecting', 'ready', 'ready'],
    ['reconnecting', 'leave', 'leaving'],
    ['leaving', 'ready', 'leaving'],
    ['leaving', 'lost', 'leaving'],
    ['leaving', 'destroyed', 'gone'],
    ['leaving', 'leave', undefined],
    ['gone', 'ready', undefined],
    ['gone', 'connecting', undefined],
    ['gone', 'destroyed', undefined],
  ])('%s + %s → %s', (from, event, to) => {
    expect(nextLinkState(from, event)).toBe(to);
  });

  test('only the destroy path leads to gone, and nothing leaves it', () => {
    const states: LinkState[] = ['joining', 'ready', 'reconnecting', 'leaving', 'gone'];
    const events: LinkEvent[] = ['connecting', 'ready', 'lost', 'leave', 'destroyed'];
    for (const from of states) {
      for (const event of events) {
        const to = nextLinkState(from, event);
        if (to === 'gone') expect([from, event]).toEqual(['leaving', 'destroyed']);
        if (from === 'gone') expect(to).toBeUndefined();
        if (from === 'leaving' && to !== undefined) expect(['leaving', 'gone']).toContain(to);
      }
    }
  });
});

describe('reconnectPlan', () => {
  const close = (closeCode: number): DisconnectCause => ({ kind: 'websocket-close', closeCode });

  test.each<[string, DisconnectCause, number, ReturnType<typeof reconnectPlan>['kind']]>([
    ['4014 may be a move: wait for it', close(4014), 0, 'await-move'],
    ['4014 even after rejoins', close(4014), 9, 'await-move'],
    ['other close codes rejoin', close(4006), 0, 'rejoin'],
    ['adapter unavailable rejoins', { kind: 'adapter-unavailable' }, 2, 'rejoin'],
    ['endpoint removed rejoins', { kind: 'endpoint-removed' }, 4, 'rejoin'],
    ['five failed attempts give up', close(4006), 5, 'give-up'],
    ['a manual disconnect gives up', { kind: 'manual' }, 0, 'give-up'],
  ])('%s', (_, cause, attempts, kind) => {
    expect(reconnectPlan(cause, attempts).kind).toBe(kind);
  });

  test('waits 5 s for a move and backs off 5 s per rejoin attempt, as the guide does', () => {
    expect(reconnectPlan(close(4014), 0)).toEqual({ kind: 'await-move', timeoutMs: 5000 });
    expect(reconnectPlan(close(1006), 0)).toEqual({ kind: 'rejoin', delayMs: 5000 });
    expect(reconnectPlan(close(1006), 3)).toEqual({ kind: 'rejoin', delayMs: 20_000 });
    expect(DEFAULT_RECONNECT_POLICY.maxRejoinAttempts).toBe(5);
  });

  test('says why it gave up in words', () => {
    const plan = reconnectPlan(close(4006), 5);
    expect(plan).toEqual({
      kind: 'give-up',
      why: 'the voice server closed the connection (code 4006), 5 reconnect attempts failed',
    });
  });
});
