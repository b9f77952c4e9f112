/** `/config twitch` and the reader's Twitch options as pure changes to the settings. */
import { describe, expect, test } from 'vitest';
import {
  addTwitchChannel,
  applyReaderOptions,
  removeTwitchChannel,
  twitchChannelName,
} from '../../src/reader/config.ts';
import { UserError } from '../../src/refusal/index.ts';
import { defaultReaderSettings } from '../../src/store/index.ts';

const defaults = defaultReaderSettings();

describe('Twitch channel names', () => {
  test.each([
    ['somestreamer', 'somestreamer'],
    ['#SomeStreamer', 'somestreamer'],
    ['https://www.twitch.tv/Some_Streamer', 'some_streamer'],
    ['twitch.tv/abc123', 'abc123'],
  ])('%j → %j', (typed, login) => {
    expect(twitchChannelName(typed)).toBe(login);
  });

  test.each(['', 'two words', 'x'.repeat(26), 'https://youtube.com/x'])(
    '%j is refused',
    (typed) => {
      expect(() => twitchChannelName(typed)).toThrow(UserError);
    },
  );
});

describe('the server’s Twitch channels', () => {
  test('added once each, at most three, removed by any spelling', () => {
    let settings = addTwitchChannel(defaults, 'one');
    settings = addTwitchChannel(settings, '#ONE');
    settings = addTwitchChannel(settings, 'two');
    settings = addTwitchChannel(settings, 'three');
    expect(settings.twitchChannels).toEqual(['one', 'two', 'three']);
    expect(() => addTwitchChannel(settings, 'four')).toThrow(UserError);
    expect(removeTwitchChannel(settings, 'twitch.tv/Two').twitchChannels).toEqual(['one', 'three']);
  });
});

describe('reader options for Twitch and voices', () => {
  test.each<[string, string[]]>([
    ['vip moderator', ['moderator', 'vip']],
    ['Subscriber, broadcaster', ['broadcaster', 'subscriber']],
    ['everyone', []],
    ['', []],
  ])('twitch-badges %j → %j', (typed, badges) => {
    expect(applyReaderOptions(defaults, { twitchBadges: typed }).twitchBadges).toEqual(badges);
  });

  test('an unknown badge is refused', () => {
    expect(() => applyReaderOptions(defaults, { twitchBadges: 'vip owner' })).toThrow(UserError);
  });

  test('voices is saved as chosen; stored settings without it read as default', () => {
    expect(defaults.voices).toBe('default');
    expect(applyReaderOptions(defaults, { voices: 'auto' }).voices).toBe('auto');
  });
});
