/**
 * The reader's speaking path, built on the speaking service: the same checks, voice choice and
 * voice queue as `/say`, with the chat's text decided when a turn starts generating.
 */
import { UserError } from '../refusal/index.ts';
import { pickVoice, type SpeakingService } from '../speaking/index.ts';
import { openSniffed } from '../tts/index.ts';
import type { VoiceService } from '../voice/index.ts';
import type { ChatSpeaking, ChatVoice } from './types.ts';

// Long enough for the service's text checks; the real text is composed when a turn generates.
const PLACEHOLDER = 'A chat message that will be read aloud in the voice channel.';

/** What {@link chatSpeaking} is built from. */
export interface ChatSpeakingDeps {
  readonly speaking: Pick<SpeakingService, 'prepare' | 'speakLater'>;
  readonly voice: Pick<VoiceService, 'channelOf' | 'skip'>;
  /** Joins a voice channel (the Discord adapter is the caller's); notices go to `textChannelId`. */
  readonly join: (guildId: string, channelId: string, textChannelId: string) => Promise<void>;
}

/** The {@link ChatSpeaking} the reader uses in the bot. */
export function chatSpeaking(deps: ChatSpeakingDeps): ChatSpeaking {
  const { speaking, voice } = deps;
  return {
    channelOf: (guildId) => voice.channelOf(guildId),
    async voiceOf(guildId, member): Promise<ChatVoice> {
      const prepared = await speaking.prepare({
        guildId,
        requester: { id: member.id, name: member.name, canManage: false },
        text: PLACEHOLDER,
        output: 'voice',
      });
      // The voice as `/say` picks it, without `chooseVoice`'s hold on the member's daily share:
      // a chat turn merges many members' messages, so it is the server's, not one member's.
      const { client, validated } = prepared;
      const voice = pickVoice(
        await client.voices(validated.model),
        validated.voiceId,
        validated.model,
      );
      const request = {
        voiceId: voice.voiceId,
        model: validated.model,
        ...(validated.speed === undefined ? {} : { speed: validated.speed }),
      };
      return {
        key: [client.keyId, request.voiceId, request.model, request.speed ?? 1].join('|'),
        client,
        request,
        open: (audioUrl, signal) => openSniffed(client, audioUrl, signal),
      };
    },
    queue(turn) {
      try {
        const { itemId } = speaking.speakLater(
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
