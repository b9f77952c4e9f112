/** A timeout as an AbortSignal on the injected clock, for the voice link's waits. */
import type { Clock } from '../tts/index.ts';

/** An AbortSignal that fires after `ms` on `clock`, or when `parent` aborts. */
export function deadline(clock: Clock, ms: number, parent: AbortSignal): AbortController {
  const controller = new AbortController();
  const stop = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', stop, { once: true });
  const release = (): void => parent.removeEventListener('abort', stop);
  clock.sleep(ms, controller.signal).then(() => {
    release();
    controller.abort(new Error(`timed out after ${ms} ms`));
  }, release);
  return controller;
}
