/**
 * Forgetting as the bot builds it (`createForgetting` over a real store in memory): a server
 * removed while no process ran is found by what the store holds of it, its members' own settings
 * alone included, and forgetting it deletes them.
 */
import Keyv from 'keyv';
import pino from 'pino';
import { expect, test } from 'vitest';
import { createForgetting } from '../../src/privacy/index.ts';
import {
  ApiKeyVault,
  KeyvMemberSettings,
  KeyvSettingsStore,
  KeyvSpeechCacheStore,
  KeyvUsageLedger,
  keysUnder,
} from '../../src/store/index.ts';
import { systemClock } from '../../src/tts/index.ts';

const CONFIGURED = '100000000000000001';
const MEMBERS_ONLY = '100000000000000002';
const STILL_HERE = '100000000000000003';

test('a server with only its members’ own settings stored is adopted as removed, and forgotten', async () => {
  const keyv = new Keyv();
  const settings = new KeyvSettingsStore(keyv);
  const members = new KeyvMemberSettings(keyv);
  await settings.updateGuild(CONFIGURED, (s) => s);
  // A member opted out where no admin ever changed a setting: no `guild:` record.
  await members.update(MEMBERS_ONLY, '300000000000000001', () => ({ read: false }));
  await members.update(STILL_HERE, '300000000000000001', () => ({ name: 'Rob' }));
  const forgetting = createForgetting({
    config: { dataRetentionMs: 0 },
    store: {
      keyv,
      settings,
      members,
      apiKeys: new ApiKeyVault(settings, Buffer.alloc(32, 7)),
      usage: new KeyvUsageLedger(keyv),
      speechCache: new KeyvSpeechCacheStore(keyv),
    },
    tts: { forget: () => undefined },
    voice: { keyChanged: () => 0 },
    durable: { journal: { list: async () => [], remove: async () => undefined } },
    discord: { owns: () => true, present: (guildId) => guildId === STILL_HERE },
    clock: systemClock,
    logger: pino({ level: 'silent' }),
  });
  expect(await forgetting.scheduler.adoptMissedRemovals()).toBe(2);
  expect((await keysUnder(keyv, 'forget:')).sort()).toEqual([
    `forget:${CONFIGURED}`,
    `forget:${MEMBERS_ONLY}`,
  ]);
  const report = await forgetting.service.forgetGuild(MEMBERS_ONLY);
  expect(report.memberSettings).toBe(1);
  expect(await keysUnder(keyv, `member:${MEMBERS_ONLY}:`)).toEqual([]);
  expect(await members.get(STILL_HERE, '300000000000000001')).toEqual({ name: 'Rob' });
});
