import { PermissionFlagsBits } from 'discord.js';
import { describe, expect, test } from 'vitest';
import { type CommandShape, helpFor, loadCommands, SETUP_STEPS } from '../../src/discord/index.ts';
import { LANGUAGES, translatorFor } from '../../src/i18n/index.ts';

const { ManageGuild, Administrator } = PermissionFlagsBits;

/** A member holding exactly these permission bits (Administrator holds them all, as Discord computes). */
const holding =
  (...held: bigint[]) =>
  (wanted: bigint): boolean => {
    const bits = held.reduce((all, bit) => all | bit, 0n);
    return (bits & Administrator) !== 0n || (bits & wanted) === wanted;
  };

const say: CommandShape = {
  name: 'say',
  description: 'Turn text into speech',
  description_localizations: { de: 'Text in Sprache umwandeln' },
};
const config: CommandShape = {
  name: 'config',
  description: 'Configure',
  default_member_permissions: ManageGuild.toString(),
};
const secret: CommandShape = {
  name: 'secret',
  description: 'Admins only',
  default_member_permissions: '0',
};
const help: CommandShape = { name: 'help', description: 'This' };
const english = translatorFor('en-US');

/** The command names a help text lists, in order. */
const listed = (text: string): string[] =>
  [...text.matchAll(/^`\/([\w-]+)`/gm)].map((m) => String(m[1]));

describe('helpFor', () => {
  test.each([
    ['a member', holding(), ['say'], false],
    ['a member with Manage Server', holding(ManageGuild), ['config', 'say'], true],
    ['an administrator', holding(Administrator), ['config', 'say', 'secret'], true],
  ])(
    '%s sees the commands their permissions open, sorted, never /help itself',
    (_, can, names, setup) => {
      const { description } = helpFor([say, secret, help, config], can, english);
      expect(listed(description)).toEqual(names);
      expect(description.includes(english.t('help.setup_title'))).toBe(setup);
      expect(description.includes(english.t('help.ask_admin'))).toBe(!setup);
    },
  );

  test('a member with Manage Server is shown the invite link; a member is not', () => {
    const invite = 'https://discord.com/oauth2/authorize?client_id=1';
    expect(helpFor([say], holding(ManageGuild), english, invite).description).toContain(invite);
    expect(helpFor([say], holding(), english, invite).description).not.toContain(invite);
  });

  test.each([
    ['en-US', 'Turn text into speech', 'TTS bot: what you can do here'],
    ['de', 'Text in Sprache umwandeln', 'TTS-Bot: Was du hier tun kannst'],
    // A language the command has no description in falls back to its English one.
    ['fr', 'Turn text into speech', 'Bot TTS : ce que tu peux faire ici'],
    ['pt-BR', 'Turn text into speech', 'TTS bot: what you can do here'],
  ])(
    'in %s, each line is the command’s own description in that language',
    (locale, line, title) => {
      const result = helpFor([say], holding(), translatorFor(locale));
      expect(result.title).toBe(title);
      expect(result.description).toContain(`\`/say\` — ${line}`);
    },
  );
});

const commands = [...(await loadCommands()).values()].map((command) => command.data.toJSON());
const configJson = commands.find((command) => command.name === 'config');

describe('/help over the real commands', () => {
  test('a manager sees every command but /help; a member every one open to everyone', () => {
    const names = commands.map((command) => command.name).filter((name) => name !== 'help');
    const admin = helpFor(commands, holding(ManageGuild), english);
    expect(listed(admin.description)).toEqual([...names].sort());
    const member = helpFor(commands, holding(), english);
    const open = commands.filter((c) => c.default_member_permissions == null).map((c) => c.name);
    expect(listed(member.description)).toEqual(open.filter((name) => name !== 'help').sort());
    expect(listed(member.description)).not.toContain('config');
  });

  test.each([...LANGUAGES])(
    'every /config step named in %s exists, and the answer fits one embed',
    (language) => {
      const translator = translatorFor(language);
      const paths = SETUP_STEPS.flatMap((key) =>
        [...translator.t(key).matchAll(/`\/config ([\w-]+)(?: ([\w-]+))?`/g)].map((m) => [
          m[1],
          m[2],
        ]),
      );
      expect(paths.length).toBeGreaterThanOrEqual(SETUP_STEPS.length);
      for (const [first, second] of paths) {
        const option = configJson?.options?.find((o) => o.name === first);
        expect(option, `/config ${first}`).toBeDefined();
        if (second !== undefined) {
          const inner = option !== undefined && 'options' in option ? (option.options ?? []) : [];
          expect(
            inner.map((o) => o.name),
            `/config ${first} ${second}`,
          ).toContain(second);
        }
      }
      const { title, description } = helpFor(commands, holding(Administrator), translator);
      expect(title.length).toBeLessThanOrEqual(256);
      expect(description.length).toBeLessThanOrEqual(4096);
    },
  );
});
