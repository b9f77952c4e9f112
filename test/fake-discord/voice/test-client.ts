import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type {
  DiscordGatewayAdapterCreator,
  DiscordGatewayAdapterLibraryMethods,
} from '@discordjs/voice';
import { sineWav as emulatorSineWav } from '../../../tools/emulator/wav.ts';
import type { VoiceBackend } from '../types.ts';

type VoiceStateData = Parameters<DiscordGatewayAdapterLibraryMethods['onVoiceStateUpdate']>[0];

/**
 * An adapter for `joinVoiceChannel` that answers op 4 like Discord's gateway, from a voice
 * backend, without discord.js: for driving @discordjs/voice directly in tests. Answers come one
 * event-loop turn later, as over a network, and stop once the library destroys the adapter.
 */
export function fakeAdapterCreator(
  voice: VoiceBackend,
  user: { userId: string; sessionId?: string },
): DiscordGatewayAdapterCreator {
  const { userId } = user;
  return (methods) => {
    let destroyed = false;
    let sessionId = user.sessionId;
    return {
      sendPayload(payload: { op: number; d: Record<string, unknown> }) {
        if (payload.op !== 4) return true;
        const guildId = String(payload.d.guild_id);
        const channelId = payload.d.channel_id;
        setImmediate(() => {
          if (typeof channelId !== 'string') {
            if (sessionId !== undefined) voice.close({ guildId, sessionId });
            sessionId = undefined;
            return;
          }
          sessionId ??= randomBytes(16).toString('hex');
          const { endpoint, token } = voice.open({ guildId, channelId, userId, sessionId });
          if (destroyed) return;
          methods.onVoiceStateUpdate(voiceState(guildId, channelId, userId, sessionId));
          methods.onVoiceServerUpdate({ guild_id: guildId, token, endpoint });
        });
        return true;
      },
      destroy() {
        destroyed = true;
      },
    };
  };
}

/** The VOICE_STATE_UPDATE Discord sends a member (the bot) that joined a channel, self-deafened. */
export function voiceState(
  guildId: string,
  channelId: string,
  userId: string,
  sessionId: string,
): VoiceStateData {
  const state: VoiceStateData = {
    guild_id: guildId,
    channel_id: channelId,
    user_id: userId,
    session_id: sessionId,
    deaf: false,
    mute: false,
    self_deaf: true,
    self_mute: false,
    self_video: false,
    suppress: false,
    request_to_speak_timestamp: null,
  };
  return state;
}

/** A mono 16-bit 48 kHz WAV file holding a sine tone. */
export function sineWav(seconds: number, frequency = 440): Buffer {
  return emulatorSineWav(seconds, { frequency });
}

/** Transcodes a WAV to Ogg/Opus with the system ffmpeg; `exited` settles when ffmpeg is reaped. */
export function oggOpusFromWav(wav: Buffer): { stream: Readable; exited: Promise<number | null> } {
  const args = ['-hide_banner', '-loglevel', 'error', '-f', 'wav', '-i', 'pipe:0'];
  args.push('-c:a', 'libopus', '-ar', '48000', '-ac', '2', '-f', 'ogg', 'pipe:1');
  const ffmpeg: ChildProcess = spawn('ffmpeg', args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const { stdin, stdout } = ffmpeg;
  if (!stdin || !stdout) throw new Error('ffmpeg started without pipes');
  stdin.end(wav);
  const exited = new Promise<number | null>((resolve, reject) => {
    ffmpeg.once('error', reject);
    ffmpeg.once('close', (code) => resolve(code));
  });
  return { stream: stdout, exited };
}
