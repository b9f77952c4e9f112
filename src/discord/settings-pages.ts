/**
 * `/config show`'s pages, pure: every server setting in sections headed by the command that
 * changes it, packed into messages Discord accepts, with buttons to move between them.
 */
import { ActionRowBuilder, ButtonBuilder, ButtonStyle } from 'discord.js';
import type { Translator } from '../i18n/index.ts';

/** One command's settings: its heading, the group it jumps with, and its lines. */
export interface SettingsSection {
  /** The command that changes these settings, as typed (`/config read who`). */
  readonly command: string;
  /** Sections of one group share a jump button (`/config read-channel` starts `read`). */
  readonly group: string;
  readonly lines: readonly string[];
}

/** One page: its text and the groups that start on it. */
export interface SettingsPage {
  readonly text: string;
  readonly starts: readonly string[];
}

/** Room left on a page for its title line (a message holds 2,000 characters). */
export const PAGE_CHARACTERS = 1_850;

/** A line cut into pieces of at most `max` characters, at a `, ` or a space where it can. */
function pieces(line: string, max: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length > max) {
    const cut = Math.max(rest.lastIndexOf(', ', max), rest.lastIndexOf(' ', max));
    const at = cut > max / 2 ? cut + 1 : max;
    out.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  out.push(rest);
  return out;
}

/**
 * The sections packed into pages of at most `max` characters, in order: a heading stays with
 * its first line, and a section that runs over a page starts the next one with its heading again.
 */
export function settingsPages(
  sections: readonly SettingsSection[],
  max = PAGE_CHARACTERS,
): SettingsPage[] {
  const pages: SettingsPage[] = [];
  let text = '';
  let starts: string[] = [];
  const close = () => {
    if (text !== '') pages.push({ text, starts });
    text = '';
    starts = [];
  };
  const seen = new Set<string>();
  for (const section of sections) {
    const heading = `__**${section.command}**__`;
    const lines = section.lines.flatMap((line) => pieces(line, max - heading.length - 1));
    const first = [heading, lines[0] ?? ''].join('\n');
    if (text !== '' && text.length + 1 + first.length > max) close();
    text = text === '' ? first : `${text}\n${first}`;
    if (!seen.has(section.group)) {
      seen.add(section.group);
      starts.push(section.group);
    }
    for (const line of lines.slice(1)) {
      if (text.length + 1 + line.length > max) {
        close();
        text = heading;
      }
      text = `${text}\n${line}`;
    }
  }
  close();
  return pages.length === 0 ? [{ text: '', starts: [] }] : pages;
}

/** The button id of a page: `config:show:<page>:<which>` (a message's ids must differ). */
export function pageButtonId(page: number, which: string): string {
  return `config:show:${page}:${which}`;
}

/** The page a `/config show` button asks for (0 when unreadable). */
export function pageOfButton(customId: string): number {
  const page = Number(customId.split(':')[2]);
  return Number.isInteger(page) && page >= 0 ? page : 0;
}

/**
 * Page `index` as a message: a title saying which page, its text, and (when there are more)
 * buttons to the page before and after, and to where each group starts.
 */
export function settingsMessage(
  { t }: Translator,
  pages: readonly SettingsPage[],
  index: number,
  groupCommand: (group: string) => string,
) {
  const at = Math.min(Math.max(index, 0), pages.length - 1);
  const page = pages[at] ?? { text: '', starts: [] };
  const title =
    pages.length === 1
      ? t('config.show_title')
      : t('config.show_title_page', { page: at + 1, pages: pages.length });
  const components: ActionRowBuilder<ButtonBuilder>[] = [];
  if (pages.length > 1) {
    const button = (target: number, which: string, label: string) =>
      new ButtonBuilder()
        .setCustomId(pageButtonId(target, which))
        .setLabel(label)
        .setStyle(ButtonStyle.Secondary)
        .setDisabled(target === at || target < 0 || target >= pages.length);
    components.push(
      new ActionRowBuilder<ButtonBuilder>().addComponents(
        button(at - 1, 'previous', `◀ ${Math.max(at, 1)}`),
        button(at + 1, 'next', `${Math.min(at + 2, pages.length)} ▶`),
      ),
    );
    const jumps = pages
      .flatMap((p, n) => p.starts.map((group) => ({ group, n })))
      .slice(0, 5)
      .map(({ group, n }) => button(n, `to-${group}`, groupCommand(group).slice(0, 80)));
    if (jumps.length > 1)
      components.push(new ActionRowBuilder<ButtonBuilder>().addComponents(jumps));
  }
  return {
    content: `**${title}**\n${page.text}`.slice(0, 2000),
    components,
    allowedMentions: { parse: [] },
  };
}
