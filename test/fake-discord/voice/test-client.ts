import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type {
  DiscordGatewayAdapterCreator,
  DiscordGatewayAdapterLibraryMethods,
} from '@discordjs/voice';
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

function voiceState(guildId: string, channelId: string, userId: string, sessionId: string) {
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
  const rate = 48_000;
  const samples = Math.round(seconds * rate);
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i += 1) {
    const value = Math.sin((2 * Math.PI * frequency * i) / rate) * 0.5 * 0x7fff;
    wav.writeInt16LE(Math.round(value), 44 + i * 2);
  }
  return wav;
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
