import { MessageFlags, SlashCommandBuilder } from 'discord.js';
import { type Command, guildIdOf } from '../src/discord/index.ts';
import { quoteSafely } from '../src/speech/index.ts';
import type { QueueEntry } from '../src/voice/index.ts';

const SHOWN = 15;
const STATE_LABEL: Readonly<Record<string, string>> = {
  queued: 'waiting',
  generating: 'generating',
  ready: 'ready',
  playing: 'playing',
};

function line(entry: QueueEntry): string {
  const who = quoteSafely(entry.requesterName, 40);
  const what = quoteSafely(entry.text, 60);
  const state = STATE_LABEL[entry.state] ?? entry.state;
  return entry.position === 0
    ? `🔊 **${who}** — “${what}” (playing)`
    : `\`${entry.position}.\` **${who}** — “${what}” · ${state}`;
}

export default {
  data: new SlashCommandBuilder()
    .setName('queue')
    .setDescription('Show what is playing and queued, in play order')
    .setContexts(0),

  async execute(interaction, { services }) {
    const guildId = guildIdOf(interaction);
    const channelId = services.voice.channelOf(guildId);
    const entries = services.voice.queue(guildId);
    const header =
      channelId === undefined ? 'I am not in a voice channel.' : `Queue in <#${channelId}>:`;
    const pending = entries.filter((entry) => entry.position > 0).length;
    const more = entries.length > SHOWN ? `\n…and ${entries.length - SHOWN} more.` : '';
    const body =
      entries.length === 0
        ? 'Nothing is playing or queued.'
        : `${entries.slice(0, SHOWN).map(line).join('\n')}${more}\n${pending} waiting.`;
    const chat = services.reader.stats(guildId);
    const reading = (await services.settings.guild(guildId)).reader.channels.length > 0;
    const chatLine =
      reading || chat.waiting + chat.droppedStale > 0
        ? `\nChat: ${chat.waiting} waiting, ${chat.droppedStale} dropped as stale (older than max-age).`
        : '';
    await interaction.reply({
      content: `${header}\n${body}${chatLine}`,
      flags: MessageFlags.Ephemeral,
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;
