import { afterEach, describe, expect, test } from 'vitest';
import { type ChatWorld, chatWorld, until } from './support.ts';

let world: ChatWorld;

afterEach(async () => {
  await world.close();
});

/** Reads `channel` for `serverId` and waits until Twitch confirmed the join. */
async function reading(serverId: string, channel: string): Promise<void> {
  world.chat.read(serverId, channel);
  await until(() => world.chat.state(channel)?.joined === true);
}

const ronni = { login: 'ronni', userId: '42' };

describe('TwitchChat against a fake Twitch', () => {
  test('logs in anonymously and hands over a message with display name, badges and emotes', async () => {
    world = await chatWorld();
    await reading('g1', 'dallas');
    expect(world.twitch.received.slice(0, 3)).toEqual([
      'CAP REQ :twitch.tv/tags twitch.tv/commands',
      'PASS SCHMOOPIIE',
      expect.stringMatching(/^NICK justinfan\d+$/),
    ]);
    world.twitch.post('dallas', {
      ...ronni,
      id: 'm1',
      displayName: 'Rönni\\the;Great',
      text: '😀 Kappa hello Keepo',
      badges: 'moderator/1,subscriber/12',
      emotes: '25:2-6/1902:14-18',
      firstMessage: true,
      sentAt: 1_700_000_000_000,
    });
    await until(() => world.messages.length === 1);
    expect(world.messages[0]).toEqual({
      kind: 'message',
      channel: 'dallas',
      roomId: expect.any(String),
      id: 'm1',
      userId: '42',
      login: 'ronni',
      displayName: 'Rönni\\the;Great',
      text: '😀 Kappa hello Keepo',
      isAction: false,
      badges: new Set(['moderator', 'subscriber']),
      emotes: [
        { id: '25', word: 'Kappa', start: 2, end: 6 },
        { id: '1902', word: 'Keepo', start: 14, end: 18 },
      ],
      firstMessage: true,
      sentAt: 1_700_000_000_000,
    });
    expect(world.chat.state('dallas')).toEqual({
      channel: 'dallas',
      connected: true,
      joined: true,
      receivedToday: 1,
    });
  });

  test('/me arrives as an action without its wrapper', async () => {
    world = await chatWorld();
    await reading('g1', 'dallas');
    world.twitch.post('dallas', { ...ronni, id: 'm1', text: 'waves at chat', action: true });
    await until(() => world.messages.length === 1);
    expect(world.messages[0]).toMatchObject({ text: 'waves at chat', isAction: true });
  });

  test('CLEARMSG deletes one message; CLEARCHAT purges a user, or the whole channel', async () => {
    world = await chatWorld();
    await reading('g1', 'dallas');
    world.twitch.deleteMessage('dallas', 'm1', 'ronni');
    world.twitch.clearChat('dallas', ronni);
    world.twitch.clearChat('dallas');
    await until(() => world.cleared.length === 2);
    expect(world.deleted).toEqual([
      { kind: 'deleted', channel: 'dallas', messageId: 'm1', login: 'ronni' },
    ]);
    expect(world.cleared).toEqual([
      { kind: 'cleared', scope: 'user', channel: 'dallas', userId: '42', login: 'ronni' },
      { kind: 'cleared', scope: 'channel', channel: 'dallas' },
    ]);
  });

  test('two servers reading one channel: one JOIN, one event; the last to stop parts it', async () => {
    world = await chatWorld();
    await reading('g1', 'dallas');
    world.chat.read('g2', 'dallas');
    await reading('g2', 'other');
    expect(world.twitch.joins).toEqual(['dallas', 'other']);
    expect(world.chat.readersOf('dallas')).toEqual(['g1', 'g2']);
    expect(world.chat.channelsOf('g2')).toEqual(['dallas', 'other']);

    world.twitch.post('dallas', { ...ronni, id: 'm1', text: 'hi' });
    await until(() => world.messages.length === 1);

    world.chat.stopReading('g1', 'dallas');
    world.chat.stopReading('g1', 'dallas');
    world.chat.stopAll('g2');
    await until(() => world.twitch.parts.length === 2);
    expect(world.twitch.parts.sort()).toEqual(['dallas', 'other']);
    expect(world.chat.state('dallas')).toBeUndefined();
    // Nothing left to read: the connection closes and stays closed.
    await until(() => world.twitch.online === 0);
    expect(world.chat.connected).toBe(false);
    expect(world.twitch.connections).toBe(1);

    world.chat.read('g3', 'dallas');
    await until(() => world.chat.state('dallas')?.joined === true);
    expect(world.twitch.connections).toBe(2);
  });

  test.each([
    ['the server asks to RECONNECT', (w: ChatWorld) => w.twitch.askReconnect()],
    ['the connection drops', (w: ChatWorld) => w.twitch.dropAll()],
  ])('%s: reconnect, rejoin every channel, no message twice', async (_, cut) => {
    world = await chatWorld();
    await reading('g1', 'dallas');
    await reading('g2', 'other');
    world.twitch.post('dallas', { ...ronni, id: 'm1', text: 'before' });
    await until(() => world.messages.length === 1);

    cut(world);
    await until(() => world.twitch.connections === 2 && world.twitch.joins.length === 4);
    await until(() => world.chat.state('dallas')?.joined === true);
    await until(() => world.chat.state('other')?.joined === true);
    expect(world.twitch.joins.slice(2).sort()).toEqual(['dallas', 'other']);
    expect(world.states).toContainEqual(expect.objectContaining({ connected: false }));
    // The reconnect waited a jittered backoff: half of the 10 ms step plus half of it times 0.5.
    expect(world.sleeps).toContain(8);

    // A message seen before the reconnect comes again (as across overlapping connections).
    world.twitch.post('dallas', { ...ronni, id: 'm1', text: 'before' });
    world.twitch.post('other', { ...ronni, id: 'm2', text: 'after' });
    await until(() => world.messages.length === 2);
    expect(world.messages.map((message) => message.id)).toEqual(['m1', 'm2']);
    expect(world.chat.state('dallas')?.receivedToday).toBe(1);
  });

  test('while Twitch is unreachable the pauses grow to the cap, then it rejoins', async () => {
    world = await chatWorld();
    await reading('g1', 'dallas');
    world.twitch.refusing = true;
    world.twitch.dropAll();
    await until(() => world.sleeps.filter((ms) => ms === 60).length >= 2);
    // Backoff pauses only (the keepalive's minute-long waits left out).
    const pauses = world.sleeps.filter((ms) => ms < 1000);
    expect(pauses.slice(0, 5)).toEqual([8, 15, 30, 60, 60]);
    world.twitch.refusing = false;
    await until(
      () => world.chat.state('dallas')?.joined === true && world.twitch.connections === 2,
    );
  });

  test('answers PING with PONG', async () => {
    world = await chatWorld();
    await reading('g1', 'dallas');
    world.twitch.ping();
    await until(() => world.twitch.received.includes('PONG :tmi.twitch.tv'));
  });

  test('a quiet link is PINGed, and dropped and rebuilt when the PING goes unanswered', async () => {
    world = await chatWorld({ pingIntervalMs: 50, answerTimeoutMs: 200 });
    await reading('g1', 'dallas');
    await until(() => world.twitch.received.includes('PING :tmi.twitch.tv'));
    expect(world.twitch.connections).toBe(1);
    world.twitch.answeringPings = false;
    await until(() => world.twitch.connections === 2, 20_000);
    await until(() => world.chat.state('dallas')?.joined === true);
  });

  test('a frame over 256 KiB ends the connection (never buffered or read), and the link comes back', async () => {
    world = await chatWorld();
    await reading('g1', 'dallas');
    const huge = `@id=big;user-id=42 :ronni!ronni@ronni.tmi.twitch.tv PRIVMSG #dallas :${'x'.repeat(300 * 1024)}\r\n`;
    world.twitch.sendRaw('dallas', huge);
    await until(() => world.twitch.connections === 2);
    await until(() => world.chat.state('dallas')?.joined === true);
    world.twitch.post('dallas', { ...ronni, id: 'after', text: 'still here' });
    await until(() => world.messages.length === 1);
    expect(world.messages.map((m) => (m.kind === 'message' ? m.id : m.kind))).toEqual(['after']);
  });
});
