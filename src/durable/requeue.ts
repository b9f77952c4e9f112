import { openSniffed } from '../tts/index.ts';
import type { SpeakUpdate, VoiceService } from '../voice/index.ts';
import type { RequeuedEnd, ResumeOptions } from './resume.ts';

const ENDS: readonly SpeakUpdate['state'][] = ['played', 'failed', 'skipped', 'cancelled'];

/**
 * Puts resumed speech back in a guild's voice queue: its audio is already
 * generated, so the item's generation step only hands over the address.
 */
export function voiceRequeue(voice: Pick<VoiceService, 'speak'>): ResumeOptions['requeue'] {
  return (entry, { audioUrl, client }, onEnd) => {
    const outcome = voice.speak({
      guildId: entry.guildId,
      requesterId: entry.requesterId,
      requesterName: entry.requesterName,
      text: entry.request.text,
      source: {
        generate: async () => audioUrl,
        open: (address, signal) => openSniffed(client, address, signal),
      },
      onUpdate: (update) => {
        if (ENDS.includes(update.state)) onEnd(update.state as RequeuedEnd);
      },
    });
    return outcome.ok;
  };
}
