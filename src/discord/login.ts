import { type Client, Events } from 'discord.js';

/** Failure to reach or log into Discord, said plainly. */
export class DiscordConnectError extends Error {
  override readonly name = 'DiscordConnectError';
}

/** Discord refused a privileged intent the bot asked for (gateway close code 4014). */
export class DisallowedIntentsError extends DiscordConnectError {}

/** Logs in and waits for the ready event, within a time limit. */
export async function login(client: Client, token: string, timeoutMs: number): Promise<void> {
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new DiscordConnectError(
            `Discord did not answer within ${timeoutMs / 1000} s: check this machine's network, then start the bot again`,
          ),
        ),
      timeoutMs,
    );
  });
  try {
    await Promise.race([client.login(token).then(() => ready), timeout]);
  } catch (error) {
    if (error instanceof DiscordConnectError) throw error;
    if (error instanceof Error && /disallowed intent/i.test(error.message)) {
      throw new DisallowedIntentsError('Discord refused a privileged intent', { cause: error });
    }
    throw new DiscordConnectError(`Could not log in to Discord: ${describeLoginError(error)}`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}

function describeLoginError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const status = (error as { status?: unknown }).status;
  if (code === 'TokenInvalid' || status === 401)
    return "the token was refused; set DISCORD_TOKEN to your application's bot token (Discord Developer Portal → your application → Bot → Reset Token)";
  const cause = (error as { cause?: { code?: unknown } }).cause?.code ?? code;
  if (typeof cause === 'string')
    return `Discord is unreachable (${cause}); check this machine's network and DNS (and DISCORD_API_URL, when set)`;
  return error instanceof Error ? error.message : String(error);
}
