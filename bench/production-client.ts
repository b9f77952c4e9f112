/**
 * The bot's TTS clients with its production settings and limits, pointed at an emulator: what
 * Polling and Acceptance measure (they drive the client directly, without Discord).
 */
import {
  DEFAULT_LIMITS,
  MemoryBudgetStore,
  productionClientOptions,
  systemClock,
  TtsClients,
} from '../src/tts/index.ts';
import type { Emulator } from '../tools/emulator/index.ts';

/** Clients by key as the bot builds them, on the emulator's API and media origin. */
export function productionClients(emulator: Pick<Emulator, 'baseUrl' | 'mediaOrigin'>): TtsClients {
  return new TtsClients(
    productionClientOptions({
      baseUrl: emulator.baseUrl,
      mediaOrigins: [emulator.mediaOrigin],
      pollDeadlineMs: 300_000,
      budgets: new MemoryBudgetStore(DEFAULT_LIMITS),
      clock: systemClock,
      onBackgroundError: () => undefined,
    }),
  );
}
