import { PermissionFlagsBits, PermissionsBitField } from 'discord.js';
import { describe, expect, test } from 'vitest';
import {
  BOT_PERMISSIONS,
  describeFailure,
  INVITE_PERMISSIONS,
  inviteUrl,
  missingPermissions,
  refuseMissing,
} from '../../src/discord/index.ts';
import { translatorFor } from '../../src/i18n/index.ts';
import { UserError } from '../../src/refusal/index.ts';

describe('the invite link', () => {
  const url = new URL(inviteUrl('123456789012345678'));

  test('is Discord’s authorize page for this application, with the bot and commands scopes', () => {
    expect(`${url.origin}${url.pathname}`).toBe('https://discord.com/oauth2/authorize');
    expect(url.searchParams.get('client_id')).toBe('123456789012345678');
    expect(url.searchParams.get('scope')?.split(' ')).toEqual(['bot', 'applications.commands']);
  });

  test('asks for exactly the permissions the bot uses, never Administrator', () => {
    const bits = BigInt(url.searchParams.get('permissions') ?? '');
    expect(bits).toBe(INVITE_PERMISSIONS);
    expect(new PermissionsBitField(bits).toArray().sort()).toEqual(
      ['AttachFiles', 'Connect', 'EmbedLinks', 'SendMessages', 'Speak', 'ViewChannel'].sort(),
    );
    // View 1024 + Send 2048 + Embed 16384 + Attach 32768 + Connect 1048576 + Speak 2097152.
    expect(bits).toBe(3_197_952n);
    expect(bits & PermissionFlagsBits.Administrator).toBe(0n);
    expect(Object.keys(BOT_PERMISSIONS)).toHaveLength(6);
  });
});

describe('missing permissions', () => {
  const { ViewChannel, Connect, Speak, Administrator } = PermissionFlagsBits;

  test.each([
    ['all held', ViewChannel | Connect | Speak, []],
    ['no Speak', ViewChannel | Connect, ['Speak']],
    ['neither Connect nor Speak', ViewChannel, ['Connect', 'Speak']],
    ['nothing', 0n, ['ViewChannel', 'Connect', 'Speak']],
    ['Administrator holds every one', Administrator, []],
  ] as const)('%s', (_, held, missing) => {
    expect(missingPermissions(held, ['ViewChannel', 'Connect', 'Speak'])).toEqual(missing);
  });

  test.each([
    ['en-US', '**Connect**, **Speak**'],
    ['de', '**Verbinden**, **Sprechen**'],
    ['fr', '**Se connecter**, **Parler**'],
    ['es-ES', '**Conectar**, **Hablar**'],
    ['ja', '**接続**, **発言**'],
  ])('the refusal names each missing permission and the channel, in %s', (locale, names) => {
    const translator = translatorFor(locale);
    let refusal: unknown;
    try {
      refuseMissing(['Connect', 'Speak'], '<#42>', translator);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(UserError);
    const text = describeFailure(refusal, translator).text;
    expect(text).toContain(names);
    expect(text).toContain('<#42>');
  });

  test('nothing missing: no refusal', () => {
    expect(() => refuseMissing([], '<#42>', translatorFor('en-US'))).not.toThrow();
  });
});
