/**
 * The many-voices memory sampler, in a worker thread: reading every process's smaps every 200 ms
 * took the bench's main thread tens of ms a time, and that thread is the receiver, whose waits
 * were stamped as gaps in every stream. Here it waits on its own thread. Posts the peak of each
 * tree (Pss, bytes) when asked, then stops.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { treeUsage } from './many-voices-proc.ts';

const { pids } = workerData as { readonly pids: readonly number[] };
const peak = pids.map(() => 0);
const sample = (): void => {
  for (const [i, usage] of treeUsage(pids, true).entries()) {
    peak[i] = Math.max(peak[i] ?? 0, usage.memoryBytes);
  }
};
const timer = setInterval(sample, 200);
sample();
parentPort?.once('message', () => {
  clearInterval(timer);
  sample();
  parentPort?.postMessage(peak);
});
