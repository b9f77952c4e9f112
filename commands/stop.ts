import { type Command, forListeners, guildCommand } from '../src/discord/index.ts';
import { UserError } from '../src/refusal/index.ts';

export default {
  data: guildCommand('stop'),

  execute: forListeners((guildId, { services, translator: { t } }) => {
    // Chat messages waiting to be read go too: the backlog, then the queue.
    const removed = services.reader.clear(guildId) + services.voice.stop(guildId);
    if (removed === 0) {
      throw new UserError('nothing_playing', {});
    }
    return t('stop.stopped', { count: removed });
  }),
} satisfies Command;
