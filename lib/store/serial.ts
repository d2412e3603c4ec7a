// Runs async work one piece after another: a refresh, a fetch or an eviction starts
// only once the one before has finished, so two never write or load the same files at once.
export class Serial {
  private last: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.last.then(work);
    this.last = next.catch(() => undefined);
    return next;
  }
}
