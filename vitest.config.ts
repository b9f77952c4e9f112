import { defineConfig } from 'vitest/config';

/**
 * End-to-end files that exercise the TTS API: they run once more against v3 (the harnesses read
 * `TTS_E2E_API`, see test/support/api-under-test.ts). Every such file is here, none left out:
 * those about limits take the figures of the version under test from api-under-test (v2's
 * daily `generate` allowance; v3's one `request` allowance a minute and its concurrent-job cap,
 * and no daily allowance, so no default member share and no quota line). Not here because it
 * is about v3 itself: test/voice/v3-streaming-e2e.test.ts starts its bot with v3 in either run.
 * Not here because the API version changes nothing they test (they run once, on v2): secrets at
 * rest and their rotation, removal and `/config forget`, graceful shutdown, the stored keys, the
 * first answer under a slow store, and Twitch chat's own rules (its speech path is
 * reader-e2e's, which runs on both).
 */
const API_MATRIX = [
  'test/commands/say.test.ts',
  'test/commands/voices.test.ts',
  'test/commands/preview.test.ts',
  'test/commands/config.test.ts',
  'test/voice/voice-e2e.test.ts',
  'test/reader/reader-e2e.test.ts',
  'test/tts/speech-cache.test.ts',
  'test/durable/resume.test.ts',
  'test/commands/preview-refusals.test.ts',
  'test/discord/result-sender.test.ts',
  'test/durable/faults.test.ts',
  'test/durable/sharded-kill.test.ts',
  'test/durable/kill.test.ts',
  'test/durable/late-resume.test.ts',
  'test/main.test.ts',
  'test/reader/burst.test.ts',
  'test/reader/busy-chat-e2e.test.ts',
  'test/reader/priority-e2e.test.ts',
  'test/reader/chat-spend.test.ts',
  'test/sharded.test.ts',
  'test/sharded-hosts.test.ts',
  'test/commands/say-limits.test.ts',
  'test/commands/usage.test.ts',
  'test/i18n/locale-e2e.test.ts',
  'test/ops/metrics.test.ts',
  'test/tools/demo.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: end-to-end files start servers and ffmpeg processes.
    maxWorkers: 2,
    projects: [
      { test: { name: 'v2', include: ['test/**/*.test.ts'] } },
      { test: { name: 'v3', include: API_MATRIX, env: { TTS_E2E_API: 'v3' } } },
    ],
  },
});
