/**
 * What the two runners of `npm run test:docker` share (the image on its own, run.ts; the compose
 * file with Redis, compose.ts): the list of checks, waiting for a condition, and the /config
 * api-key plus /say check against the fake Discord and the emulator.
 */
import type { Emulator } from '../../tools/emulator/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import type { FakeDiscord } from '../fake-discord/index.ts';
import { waitForHttp } from '../support/process.ts';

export type Check = (what: string, ok: boolean, detail?: string) => void;

/** Checks printed as they pass; the first that fails throws. */
export function checks(label: string): { readonly check: Check; readonly results: string[] } {
  const results: string[] = [];
  const check: Check = (what, ok, detail = '') => {
    results.push(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? ` (${detail})` : ''}`);
    console.log(`${label}${results.at(-1)}`);
    if (!ok) throw new Error(`docker test failed: ${what}`);
  };
  return { check, results };
}

/** The first value `probe` gives (a throw counts as none), polled every 500 ms. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * An admin gives the server the emulator's key with /config api-key, then a member's /say must
 * come back with the emulator's audio, counted once in /metrics on `httpPort`.
 */
export async function configureAndSay(
  check: Check,
  discord: FakeDiscord,
  emulator: Emulator,
  httpPort: number,
): Promise<void> {
  const configured = await discord
    .slash({ user: 'admin', name: 'config', subcommand: 'api-key' })
    .submitModal({ 'api-key': USER_ONE.apiKey })
    .then((handle) => handle.waitFor((event) => event.kind === 'edit', 30_000));
  check(
    '/config api-key is checked and saved',
    JSON.stringify(configured).includes('checked and saved'),
  );
  const say = discord.slash({
    user: 'member',
    name: 'say',
    options: { text: 'Hello from the container, this is the docker test speaking.' },
  });
  await say.waitFor((event) => 'files' in event && event.files.length > 0, 60_000);
  const [file] = say.files();
  const generationId = emulator.requests
    .filter((r) => r.endpoint === 'GET /v2/status')
    .map((r) => new URL(r.path, 'http://x').searchParams.get('generation_id'))
    .at(-1);
  const expected = emulator.audioOf(generationId ?? '');
  check(
    '/say answers with the emulator’s audio',
    file !== undefined && expected !== undefined && file.data.equals(expected),
    `${file?.filename}, ${file?.data.length} bytes`,
  );
  const metrics = await waitForHttp(`http://127.0.0.1:${httpPort}/metrics`);
  check(
    '/metrics counts the delivered generation',
    /^tts_generations_total\{outcome="delivered"\} 1$/m.test(metrics),
  );
}
