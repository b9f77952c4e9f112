import { type DaveCounters, newDaveCounters } from './dave.ts';
import type { SpeakingEvent } from './gateway.ts';
import { samplesToMs } from './opus.ts';

/** What the fake voice server received from the bot in one guild (all sessions together). */
export interface ReceivedAudio {
  /** RTP packets that decrypted, silence frames included. */
  packets: number;
  /** Decrypted Opus frames, silence frames excluded. */
  opusFrames: Buffer[];
  /** When each of `opusFrames` arrived (epoch ms with sub-ms precision), for latency and jitter. */
  arrivals: number[];
  silenceFrames: number;
  /** Decoded samples per channel at 48 kHz. */
  pcmSamples: number;
  /** Duration of the decoded audio. */
  durationMs: number;
  speaking: SpeakingEvent[];
  keepAlives: number;
  /** RTP packets of this guild's SSRCs that came before Select Protocol or failed to decrypt or decode. */
  rejectedPackets: number;
  /** What the listening members made of the non-silence frames while DAVE was on. */
  dave: DaveCounters;
}

/** Options of `waitForAudio`. */
export interface WaitForAudioOptions {
  /** Resolve only once at least this much audio was decoded; default: any audio. */
  minDurationMs?: number;
  /** How long no packet must arrive before the audio counts as finished; default 300 ms. */
  quietMs?: number;
  timeoutMs: number;
}

const POLL_MS = 20;

/** Per-guild records and the waits on them. */
export class AudioRecords {
  readonly #records = new Map<string, ReceivedAudio & { lastPacketAt: number }>();
  readonly #pastPlaintext = new Map<string, number>();
  readonly #waits = new Set<{ timer?: NodeJS.Timeout; reject: (error: Error) => void }>();

  /** The live record of a guild, created empty on first use. */
  record(guildId: string): ReceivedAudio & { lastPacketAt: number } {
    let record = this.#records.get(guildId);
    if (!record) {
      record = {
        packets: 0,
        opusFrames: [],
        arrivals: [],
        silenceFrames: 0,
        pcmSamples: 0,
        durationMs: 0,
        speaking: [],
        keepAlives: 0,
        rejectedPackets: 0,
        dave: newDaveCounters(),
        lastPacketAt: 0,
      };
      this.#records.set(guildId, record);
    }
    return record;
  }

  /** A copy of what a guild received so far. */
  snapshot(guildId: string): ReceivedAudio {
    const { lastPacketAt: _, ...record } = this.record(guildId);
    return {
      ...record,
      opusFrames: [...record.opusFrames],
      arrivals: [...record.arrivals],
      speaking: [...record.speaking],
      dave: { ...record.dave },
      durationMs: samplesToMs(record.pcmSamples),
    };
  }

  /** Guilds with a record. */
  guilds(): string[] {
    return [...new Set([...this.#records.keys(), ...this.#pastPlaintext.keys()])];
  }

  /** Plaintext frames a guild heard under DAVE since the start, across `reset`s. */
  plaintextSinceStart(guildId: string): number {
    return (
      (this.#pastPlaintext.get(guildId) ?? 0) + (this.#records.get(guildId)?.dave.plaintext ?? 0)
    );
  }

  reset(guildId: string): void {
    this.#pastPlaintext.set(guildId, this.plaintextSinceStart(guildId));
    this.#records.delete(guildId);
  }

  /** Resolves once the guild received audio and then nothing for `quietMs`. */
  waitForAudio(guildId: string, options: WaitForAudioOptions): Promise<ReceivedAudio> {
    const { minDurationMs = Number.MIN_VALUE, quietMs = 300, timeoutMs } = options;
    const deadline = Date.now() + timeoutMs;
    return new Promise((resolve, reject) => {
      const wait: { timer?: NodeJS.Timeout; reject: (error: Error) => void } = { reject };
      const check = (): void => {
        const record = this.record(guildId);
        const now = Date.now();
        const done =
          samplesToMs(record.pcmSamples) >= minDurationMs && now - record.lastPacketAt >= quietMs;
        if (done || now >= deadline) {
          this.#waits.delete(wait);
          const received = this.snapshot(guildId);
          if (done) resolve(received);
          else reject(new Error(`no finished audio in guild ${guildId}: ${describe(received)}`));
          return;
        }
        wait.timer = setTimeout(check, POLL_MS);
      };
      this.#waits.add(wait);
      check();
    });
  }

  /** Rejects every pending wait and clears its timer. */
  cancelWaits(reason: string): void {
    for (const wait of this.#waits) {
      clearTimeout(wait.timer);
      wait.reject(new Error(reason));
    }
    this.#waits.clear();
  }
}

function describe(received: ReceivedAudio): string {
  return `${received.packets} packets, ${Math.round(received.durationMs)} ms decoded, DAVE ${JSON.stringify(received.dave)}`;
}
