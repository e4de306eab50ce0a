// Units of work take turns on the write connection. SQLite has one writer at a time per database; its lock is
// taken with a blocking wait (better-sqlite3 is synchronous), which would stop this thread, and with it the unit of
// work that holds the lock. So writers take turns here first, asynchronously, and the one holding the turn finds the
// database lock free. The async context remembers whose turn it is: a unit of work opened inside another one is
// a part of it (a savepoint), not a second writer waiting for the first.
import { AsyncLocalStorage } from 'node:async_hooks';

/** The statements that open, commit and roll back a transaction or a savepoint. */
export interface Transactional {
  begin(): void;
  commit(): void;
  rollback(): void;
}

export class WriterTurns {
  private holder: object | undefined;
  private depth = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly context = new AsyncLocalStorage<object>();

  /** Whether the caller runs inside the unit of work that has the turn. */
  owns(): boolean {
    return this.holder !== undefined && this.context.getStore() === this.holder;
  }

  /** Whether some unit of work has the turn now. */
  get busy(): boolean {
    return this.holder !== undefined;
  }

  /**
   * Runs `work` with the writer's turn: `top.begin` before, `top.commit` after it resolves, `top.rollback` if it
   * throws. Inside the unit of work that has the turn, `nested(depth)` (a savepoint) frames it instead.
   */
  async hold<T>(work: () => Promise<T>, top: Transactional, nested: (depth: number) => Transactional): Promise<T> {
    if (this.owns()) return this.frame(work, nested(++this.depth)).finally(() => this.depth--);
    while (this.holder !== undefined) await new Promise<void>((resolve) => this.waiting.push(resolve));
    const token = {};
    this.holder = token;
    try {
      return await this.context.run(token, () => this.frame(work, top));
    } finally {
      this.holder = undefined;
      const next = this.waiting.shift();
      if (next) next();
      // Node 20's AsyncLocalStorage tracks every promise the process makes while an instance is enabled (a promise
      // hook): with no unit of work running there is nothing to track, so it is off until the next `run`, and the
      // read traffic between writes does not pay for it (an `await` costs about 3× as much with the hook on).
      else this.context.disable();
    }
  }

  private async frame<T>(work: () => Promise<T>, sql: Transactional): Promise<T> {
    sql.begin();
    let result: T;
    try {
      result = await work();
    } catch (error) {
      sql.rollback();
      throw error;
    }
    sql.commit();
    return result;
  }
}
