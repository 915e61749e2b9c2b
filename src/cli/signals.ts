/** The next SIGINT or SIGTERM this process gets, by name (each is handled once: a later one goes to whoever listens then). */
export function nextStopSignal(): Promise<'SIGINT' | 'SIGTERM'> {
  return new Promise((done) => {
    process.once('SIGINT', () => done('SIGINT'));
    process.once('SIGTERM', () => done('SIGTERM'));
  });
}
