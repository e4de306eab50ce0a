/**
 * Who may run a SERIALIZABLE unit of work in this instance now (engine.ts). Units run side by side (shared); a unit
 * PostgreSQL refused (a serialization failure) runs again alone (exclusive): once the units in flight are done, and
 * before any that arrived after it. Side by side, units of one tenant that read and insert the same ranges (16
 * notifications added at once to one document) refused each other again and again, past any number of attempts;
 * alone, a retry meets at most the other instances' units. A waiting exclusive unit holds new shared ones back, so
 * that it is never starved.
 *
 * Units of work wait on nothing but storage, and a unit's nested units run inside it (savepoints), so a unit never
 * waits for the gate while holding it.
 */
export class Gate {
  private shared = 0;
  private exclusive = false;
  private readonly waiting: Array<{ exclusive: boolean; enter: () => void }> = [];

  /** Resolves once the caller may run; `leave(exclusive)` must follow. */
  enter(exclusive: boolean): Promise<void> {
    if (this.waiting.length === 0 && this.free(exclusive)) {
      this.take(exclusive);
      return Promise.resolve();
    }
    return new Promise((enter) => this.waiting.push({ exclusive, enter }));
  }

  leave(exclusive: boolean) {
    if (exclusive) this.exclusive = false;
    else this.shared--;
    // the longest waiting first; shared ones in a row enter together
    while (this.waiting.length > 0) {
      const next = this.waiting[0] as (typeof this.waiting)[number];
      if (!this.free(next.exclusive)) return;
      this.waiting.shift();
      this.take(next.exclusive);
      next.enter();
    }
  }

  private free(exclusive: boolean) {
    return !this.exclusive && (!exclusive || this.shared === 0);
  }

  private take(exclusive: boolean) {
    if (exclusive) this.exclusive = true;
    else this.shared++;
  }
}
