export type StopSignal = 'SIGINT' | 'SIGTERM';

/** The next SIGINT or SIGTERM this process gets, by name (each is handled once: a later one goes to whoever listens then). */
export function nextStopSignal(): Promise<StopSignal> {
  return new Promise((done) => {
    process.once('SIGINT', () => done('SIGINT'));
    process.once('SIGTERM', () => done('SIGTERM'));
  });
}

/**
 * Calls `handler` on the first SIGINT or SIGTERM, then stops listening to
 * both: a second signal ends the process as Node's default does. Returns
 * the function that stops listening before any came.
 */
export function onFirstStopSignal(handler: (signal: StopSignal) => void): () => void {
  const stop = () => {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onTerminate);
  };
  const onInterrupt = () => {
    stop();
    handler('SIGINT');
  };
  const onTerminate = () => {
    stop();
    handler('SIGTERM');
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onTerminate);
  return stop;
}
