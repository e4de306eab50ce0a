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

/** The holder of a turn taken by statements alone (no async context: nothing runs inside them). */
const ALONE = {};

export class WriterTurns {
  private holder: object | undefined;
  private depth = 0;
  private readonly waiting: Array<() => void> = [];
  /** What waits for the commit of the unit of work that has the turn (afterCommit). */
  private committed: Array<() => void> = [];
  private readonly context = new AsyncLocalStorage<object>();

  /** Whether the caller runs inside the unit of work that has the turn. */
  owns(): boolean {
    return this.holder !== undefined && this.context.getStore() === this.holder;
  }

  /**
   * Runs `callback` once the caller's unit of work has committed (before the next unit of work takes the turn), and
   * never if it rolls back; outside a unit of work, at once. A unit that awaits between its steps (an import's
   * chunks, a held reset) must not tell others of rows it has not committed yet.
   */
  afterCommit(callback: () => void): void {
    if (this.owns()) this.committed.push(callback);
    else callback();
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
    this.committed = [];
    try {
      const result = await this.context.run(token, () => this.frame(work, top));
      const committed = this.committed;
      this.committed = [];
      for (const callback of committed) callback();
      return result;
    } finally {
      this.committed = [];
      this.release();
    }
  }

  /**
   * Runs synchronous `statements` as a unit of work of their own, once no other unit of work has the turn (at once
   * when none has it): no await can come between them, so no other request's statement can run inside them, and
   * they need no async context (the usual single write outside a unit of work).
   */
  async holdAlone<T>(statements: () => T, top: Transactional): Promise<T> {
    while (this.holder !== undefined) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.holder = ALONE;
    try {
      top.begin();
      let result: T;
      try {
        result = statements();
      } catch (error) {
        top.rollback();
        throw error;
      }
      top.commit();
      return result;
    } finally {
      this.release();
    }
  }

  /** Ends a turn: the next waiting unit of work goes on, or, with none waiting, the async context is turned off. */
  private release() {
    this.holder = undefined;
    const next = this.waiting.shift();
    if (next) next();
    // Node 20's AsyncLocalStorage tracks every promise the process makes while an instance is enabled (a promise
    // hook): with no unit of work running there is nothing to track, so it is off until the next `run`, and the
    // read traffic between writes does not pay for it (an `await` costs about 3× as much with the hook on).
    else this.context.disable();
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
