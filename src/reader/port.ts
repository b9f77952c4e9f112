/**
 * The reader's speaking path: the speaking service decides each author's voice (and whether
 * their chat share allows reading them), queues the chat's turns, and generates and records
 * each turn's text when it starts.
 */
import { UserError } from '../refusal/index.ts';
import type { SpeakingService } from '../speaking/index.ts';
import type { VoiceService } from '../voice/index.ts';
import type { ChatSpeaking } from './types.ts';

/** What {@link chatSpeaking} is built from. */
export interface ChatSpeakingDeps {
  readonly speaking: Pick<SpeakingService, 'chatVoice' | 'speakChat'>;
  readonly voice: Pick<VoiceService, 'channelOf' | 'skip'>;
  /** Joins a voice channel (the Discord adapter is the caller's); notices go to `textChannelId`. */
  readonly join: (guildId: string, channelId: string, textChannelId: string) => Promise<void>;
}

/** The {@link ChatSpeaking} the reader uses in the bot. */
export function chatSpeaking(deps: ChatSpeakingDeps): ChatSpeaking {
  const { speaking, voice } = deps;
  return {
    channelOf: (guildId) => voice.channelOf(guildId),
    voiceOf: (guildId, member, text) => speaking.chatVoice(guildId, member, text),
    queue(turn) {
      try {
        const { itemId } = speaking.speakChat(
          {
            guildId: turn.guildId,
            requester: { id: turn.requesterId, name: turn.requesterName },
            text: turn.text,
            source: turn.source,
          },
          turn.onUpdate,
        );
        return { ok: true, itemId };
      } catch (error) {
        // Full, or left voice meanwhile: the reader asks again later.
        if (error instanceof UserError) return { ok: false };
        throw error;
      }
    },
    skip: (guildId) => voice.skip(guildId),
    join: deps.join,
  };
}
