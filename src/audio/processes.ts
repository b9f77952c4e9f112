import type { ChildProcess } from 'node:child_process';

/**
 * Registry of live ffmpeg children, so shutdown and tests can see and kill what is running.
 * A child is listed from spawn until Node has reaped it. Built by the composition root (one per
 * bot) and passed down; there is no shared default.
 */
export class FfmpegProcesses {
  readonly #live = new Map<number, ChildProcess>();
  readonly #exited = new Map<number, Promise<void>>();

  /** Starts tracking a spawned child; it is dropped once it exits. Returns false if it has no pid. */
  track(child: ChildProcess): boolean {
    const pid = child.pid;
    if (pid === undefined) return false;
    this.#live.set(pid, child);
    this.#exited.set(
      pid,
      new Promise((resolve) => {
        const forget = (): void => {
          this.#live.delete(pid);
          this.#exited.delete(pid);
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) forget();
        else child.once('exit', forget);
      }),
    );
    return true;
  }

  /** Pids of the ffmpeg children that have not exited yet. */
  pids(): number[] {
    return [...this.#live.keys()];
  }

  /** SIGKILLs every live child and resolves once all have exited (bot shutdown, test cleanup). */
  async killAll(): Promise<void> {
    const waits = [...this.#exited.values()];
    for (const child of this.#live.values()) child.kill('SIGKILL');
    await Promise.all(waits);
  }
}
