import { describe, expect, test } from 'vitest';
import {
  pageButtonId,
  pageOfButton,
  type SettingsSection,
  settingsMessage,
  settingsPages,
} from '../../src/discord/settings-pages.ts';
import { english } from '../../src/i18n/index.ts';

const section = (command: string, group: string, lines: string[]): SettingsSection => ({
  command,
  group,
  lines,
});

describe('settingsPages', () => {
  test('short settings are one page, every section under its command', () => {
    const pages = settingsPages([
      section('/config api-key', 'key', ['**API key:** not set']),
      section('/config read who', 'read', ['**silent:** skip', '**read-bots:** none']),
    ]);
    expect(pages).toEqual([
      {
        text: '__**/config api-key**__\n**API key:** not set\n__**/config read who**__\n**silent:** skip\n**read-bots:** none',
        starts: ['key', 'read'],
      },
    ]);
  });

  test.each([100, 250, 1000])(
    'long settings run over pages of at most %i characters, keeping every line in order',
    (max) => {
      const lines = Array.from({ length: 60 }, (_, n) => `\`word${n}\` → ${'x'.repeat(n % 40)}`);
      const sections = [
        section('/config api-key', 'key', ['key line']),
        section('/config dictionary', 'dictionary', lines),
        section('/config block-word', 'block-word', [
          Array.from({ length: 80 }, (_, n) => `\`w${n}\``).join(', '),
        ]),
      ];
      const pages = settingsPages(sections, max);
      expect(pages.length).toBeGreaterThan(1);
      for (const page of pages) expect(page.text.length).toBeLessThanOrEqual(max);
      const text = pages.map((p) => p.text).join('\n');
      let at = -1;
      for (const line of lines) {
        const found = text.indexOf(line, at + 1);
        expect(found, line).toBeGreaterThan(at);
        at = found;
      }
      for (let n = 0; n < 80; n++) expect(text).toContain(`\`w${n}\``);
      // A section that runs over starts the next page with its heading again.
      for (const page of pages.slice(1)) expect(page.text).toMatch(/^__\*\*\/config /);
      expect(pages.flatMap((p) => p.starts)).toEqual(['key', 'dictionary', 'block-word']);
    },
  );

  test('no sections is one empty page', () => {
    expect(settingsPages([])).toEqual([{ text: '', starts: [] }]);
  });
});

describe('settingsMessage', () => {
  const pages = settingsPages(
    [
      section('/config api-key', 'key', ['a'.repeat(80)]),
      section('/config read who', 'read', ['b'.repeat(80)]),
      section('/config twitch', 'twitch', ['c'.repeat(80)]),
    ],
    120,
  );
  const groupCommand = (group: string) => `/config ${group}`;

  test('one page: a title and no buttons', () => {
    const one = settingsPages([section('/config api-key', 'key', ['k'])]);
    const message = settingsMessage(english, one, 0, groupCommand);
    expect(message.content).toBe('**Server settings**\n__**/config api-key**__\nk');
    expect(message.components).toEqual([]);
  });

  test('more pages: the title says which, with buttons before, after and to each group', () => {
    expect(pages).toHaveLength(3);
    const message = settingsMessage(english, pages, 1, groupCommand);
    expect(message.content).toMatch(
      /^\*\*Server settings, page 2 of 3\*\*\n__\*\*\/config read who/,
    );
    const rows = message.components.map((row) => row.toJSON().components);
    expect(rows[0]?.map((b) => ('custom_id' in b ? b.custom_id : ''))).toEqual([
      pageButtonId(0, 'previous'),
      pageButtonId(2, 'next'),
    ]);
    const jumps = rows[1] ?? [];
    expect(jumps.map((b) => ('label' in b ? b.label : ''))).toEqual([
      '/config key',
      '/config read',
      '/config twitch',
    ]);
    // The page shown is not a jump target.
    expect(jumps.map((b) => b.disabled)).toEqual([false, true, false]);
    const last = settingsMessage(english, pages, 2, groupCommand).components[0]?.toJSON();
    expect(last?.components.map((b) => b.disabled)).toEqual([false, true]);
  });

  test.each([
    ['config:show:2:next', 2],
    ['config:show:0:to-key', 0],
    ['config:show:x:next', 0],
    ['config:show', 0],
  ])('the button %j turns to page %i', (id, page) => {
    expect(pageOfButton(id)).toBe(page);
  });

  test('a page out of range shows the nearest one', () => {
    expect(settingsMessage(english, pages, 9, groupCommand).content).toContain('page 3 of 3');
  });
});
