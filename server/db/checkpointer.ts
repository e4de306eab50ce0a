import type Database from 'better-sqlite3';

/**
 * How often a pass runs while the log grows, and while it does not. Under notifications/add at concurrency 50,
 * 20 and 50 ms gave the same throughput, 20 ms the lower p99; 100 ms less throughput and a higher p99 (docs/decisions.md).
 */
export const CHECKPOINT_BUSY_MS = 20;
export const CHECKPOINT_IDLE_MS = 1_000;

/** SQLite's default automatic checkpoint, in pages of the log: what the main connection uses on its own. */
export const DEFAULT_AUTOCHECKPOINT_PAGES = 1_000;
/**
 * The main connection's automatic checkpoint while a checkpointer runs. It stays, as the backstop and as the
 * log's reset: SQLite writes the log from its start again only when a writer begins with every frame copied, and
 * under constant writes that happens right after a checkpoint on the writer's own thread, which then copies only
 * the frames since the checkpointer's last pass. Measured under notifications/add at concurrency 50, against
 * SQLite's 1,000 alone (docs/decisions.md): 1,000 with the checkpointer gained nothing (the writer still ran
 * nearly every checkpoint); 4,000 gave +10–13 % throughput (two runs) with a lower p50 and p99; 10,000 gave
 * +20 % but a higher p99, and a log of up to ~40 MB instead of ~16 MB.
 */
export const MAIN_AUTOCHECKPOINT_PAGES = 4_000;

/** Sets the writer's automatic checkpoint for a checkpointer that runs (or does not run any more). */
export function setCheckpointerRunning(main: Database.Database, running: boolean) {
  if (!main.open) return;
  main.pragma(`wal_autocheckpoint = ${running ? MAIN_AUTOCHECKPOINT_PAGES : DEFAULT_AUTOCHECKPOINT_PAGES}`);
}

export interface Checkpointer {
  stop(): void;
}

/** A `PRAGMA wal_checkpoint` answer: busy 1 when it could not finish; frames in the log, and copied. */
export interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

/**
 * Copies the write-ahead log of `sqlite`'s database into the database file from this connection (a second one,
 * on another thread), so that the thread that commits mostly does not: SQLite's automatic checkpoint runs inside
 * the commit that crosses its threshold, and the request that made it waits for the copy and two fsyncs.
 * PASSIVE checkpoints never wait for a lock and never block a reader or the writer; a pass that finds the
 * checkpoint lock taken (by the writer's own checkpoint) leaves the work to the next pass.
 */
export function startCheckpointer(
  sqlite: Database.Database,
  options: { busyMs?: number; idleMs?: number; onError?: (error: Error) => void } = {},
): Checkpointer {
  const busyMs = options.busyMs ?? CHECKPOINT_BUSY_MS;
  const idleMs = options.idleMs ?? CHECKPOINT_IDLE_MS;
  let lastLog = -1;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(pass, ms);
    timer.unref();
  };
  function pass() {
    let next = idleMs;
    try {
      const [row] = sqlite.pragma('wal_checkpoint(PASSIVE)') as CheckpointRow[];
      // The log grew (or started over) since the last pass, or part of it is still to copy: look again soon.
      if (row && (row.log !== lastLog || row.checkpointed < row.log)) next = busyMs;
      lastLog = row?.log ?? -1;
    } catch (error) {
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
    }
    schedule(next);
  }
  schedule(busyMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
