import davey from '@snazzah/davey';
import { describe, expect, test } from 'vitest';
import { ExternalSender, proposalsVector, splitCommitWelcome } from './mls.ts';

const CHANNEL_ID = '300000000000000001';
const BOT_ID = '100000000000000001';
const MEMBER_ID = '100000000000000002';
const AUDIO = 0;

function session(userId: string, sender: ExternalSender): InstanceType<typeof davey.DAVESession> {
  const s = new davey.DAVESession(1, userId, CHANNEL_ID);
  s.setExternalSender(sender.package());
  return s;
}

function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`missing ${what}`);
  return value;
}

describe('the fake external sender', () => {
  test('its signed Add proposal lets a davey client form a group that a listening member joins and decrypts', () => {
    const sender = new ExternalSender();
    const bot = session(BOT_ID, sender);
    const member = session(MEMBER_ID, sender);
    const proposals = proposalsVector([
      sender.add(CHANNEL_ID, 0n, member.getSerializedKeyPackage()),
    ]);
    const result = bot.processProposals(0, proposals, [MEMBER_ID]);
    const commit = present(result.commit, 'commit');
    const welcome = present(result.welcome, 'welcome');

    const split = splitCommitWelcome(Buffer.concat([commit, welcome]));
    expect(split.commit.equals(commit)).toBe(true);
    expect(split.welcome?.equals(welcome)).toBe(true);

    member.processWelcome(welcome);
    bot.processCommit(commit);
    expect([bot.ready, member.ready]).toEqual([true, true]);

    const opus = Buffer.from([0xf8, 1, 2, 3, 4, 5, 6, 7]);
    const frame = bot.encryptOpus(opus);
    expect(frame.readUInt16BE(frame.length - 2)).toBe(0xfafa);
    expect(member.decrypt(BOT_ID, AUDIO, frame).equals(opus)).toBe(true);
  });
});
