import { ConfigError, parseConfig } from './config/index.ts';
import { createDiscordClient, loadCommands, login, registerCommands } from './discord/index.ts';
import { createLogger } from './log/index.ts';
import { openKeyv } from './store/index.ts';

/** Registers the slash commands now, whether or not they changed (`npm run deploy-commands`). */
async function deploy(): Promise<void> {
  const config = parseConfig(process.env);
  const logger = createLogger({ level: config.logLevel, pretty: config.prettyLogs });
  const client = createDiscordClient({ apiUrl: config.discordApiUrl });
  const keyv = await openKeyv(config.storeUrl);
  try {
    await login(client, config.discordToken, 30_000);
    if (!client.isReady()) throw new Error('the Discord client is not ready after login');
    await registerCommands({
      client,
      commands: await loadCommands(),
      keyv,
      logger,
      guildId: config.devGuildId,
      force: true,
      api: config.ttsApi.version,
    });
  } finally {
    await client.destroy();
    await keyv.disconnect();
  }
}

deploy().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof ConfigError ? error.message : `deploy-commands failed: ${error instanceof Error ? error.message : String(error)}`}\n`,
  );
  process.exitCode = 1;
});
