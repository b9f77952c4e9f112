import { type Command, forListeners, guildCommand } from '../src/discord/index.ts';
import { UserError } from '../src/refusal/index.ts';
import { quoteSafely } from '../src/speech/index.ts';

export default {
  data: guildCommand('skip'),

  execute: forListeners((guildId, { services, translator: { t } }) => {
    const up = services.voice.queue(guildId)[0];
    if (up === undefined || !services.voice.skip(guildId)) {
      throw new UserError('nothing_to_skip', {});
    }
    return t('skip.skipped', {
      name: quoteSafely(up.requesterName, 80),
      text: quoteSafely(up.text, 80),
    });
  }),
} satisfies Command;
