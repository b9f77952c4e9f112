import { defaultGenerationMs, type EmulatorOptions } from '../../tools/emulator/index.ts';

/**
 * `TTS_GENERATION_TIME` for a bot facing an emulator with this generation time (read off its
 * base model at two lengths), so the bot's first polls expect what that emulator does, as they
 * expect the real API's shape in production.
 */
export function generationTimeEnv(
  generationMs: EmulatorOptions['generationMs'] = defaultGenerationMs,
): string {
  const fixed = Math.min(60_000, Math.max(0, Math.round(generationMs('base', 0))));
  const perChar = Math.min(1000, Math.max(0, Math.round(generationMs('base', 100) - fixed) / 100));
  return `${fixed}ms+${perChar}ms/char`;
}
