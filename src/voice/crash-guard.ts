/**
 * A process-wide guard for one known @discordjs/voice 0.19 race: destroying a connection before
 * its first UDP keep-alive can throw ERR_SOCKET_DGRAM_NOT_RUNNING from a timer, uncaught. Each
 * socket a `VoiceLink` makes is guarded itself (`udp-guard.ts`); this is the second line, for a
 * socket made some other way.
 */

/** The subset of a pino logger the guard uses. */
export interface CrashGuardLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
  fatal(obj: Record<string, unknown>, msg: string): void;
}

/** The subset of `process` the guard uses. */
export interface GuardedProcess {
  on(event: 'uncaughtException', listener: (error: Error) => void): unknown;
  off(event: 'uncaughtException', listener: (error: Error) => void): unknown;
  exit(code: number): never;
}

/** True only for the keep-alive race: that error code, thrown from VoiceUDPSocket's keepAlive. */
export function isVoiceKeepAliveRace(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  return (
    code === 'ERR_SOCKET_DGRAM_NOT_RUNNING' &&
    error.stack?.includes('VoiceUDPSocket.keepAlive') === true
  );
}

/**
 * Installs an `uncaughtException` handler that ignores (with a warning) only the keep-alive
 * race, and logs and exits with code 1 on anything else, as Node would. Returns the uninstaller.
 */
export function installVoiceCrashGuard(
  target: GuardedProcess,
  logger: CrashGuardLogger,
): () => void {
  const onUncaught = (error: Error): void => {
    if (isVoiceKeepAliveRace(error)) {
      logger.warn(
        { err: error },
        'ignored ERR_SOCKET_DGRAM_NOT_RUNNING from a destroyed voice connection',
      );
      return;
    }
    logger.fatal({ err: error }, 'uncaught exception');
    target.exit(1);
  };
  target.on('uncaughtException', onUncaught);
  return () => {
    target.off('uncaughtException', onUncaught);
  };
}
