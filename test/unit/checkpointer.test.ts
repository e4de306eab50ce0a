import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startCheckpointer } from '../../server/db/checkpointer.ts';
import { eventually } from '../helpers/server.ts';

let dir: string;
let file: string;
let writer: Database.Database;
let second: Database.Database;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hearth-checkpointer-'));
  file = join(dir, 'test.db');
  writer = new Database(file);
  writer.pragma('journal_mode = WAL');
  // The writer never checkpoints by itself here: whatever reaches the database file was copied by the checkpointer.
  writer.pragma('wal_autocheckpoint = 0');
  writer.exec('CREATE TABLE t (v TEXT)');
  second = new Database(file);
});
afterEach(() => {
  writer.close();
  if (second.open) second.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Rows of `t` in the database file itself, leaving out the log: a copy of the file opened alone. */
function rowsInFile(): number {
  const copy = join(dir, 'copy.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true });
  copyFileSync(file, copy);
  const db = new Database(copy);
  try {
    return (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Frames in the log (the writer's PASSIVE checkpoint that reports them copies them too). */
const logFrames = () => (writer.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;

const insertRows = (count: number, value = 'x'.repeat(1000)) => {
  const insert = writer.prepare('INSERT INTO t VALUES (?)');
  writer.transaction(() => {
    for (let i = 0; i < count; i++) insert.run(value);
  })();
};

describe('checkpointer', () => {
  it('copies the log into the database file from a second connection, and the writer then starts the log over', async () => {
    insertRows(500);
    expect(() => rowsInFile()).toThrow(/no such table/); // everything is still in the log only
    const checkpointer = startCheckpointer(second, { busyMs: 5, idleMs: 5 });
    try {
      await eventually(() => expect(rowsInFile()).toBe(500));
      // Every frame copied: the writer's next transaction writes the log from its start.
      insertRows(1, 'y');
      expect(logFrames()).toBeLessThan(5);
      insertRows(300);
      await eventually(() => expect(rowsInFile()).toBe(801));
    } finally {
      checkpointer.stop();
    }
  });

  it('stops copying once stopped', async () => {
    const checkpointer = startCheckpointer(second, { busyMs: 5, idleMs: 5 });
    insertRows(10);
    await eventually(() => expect(rowsInFile()).toBe(10));
    checkpointer.stop();
    // forty intervals' time on a fake clock: the stopped checkpointer's timer never fires
    vi.useFakeTimers();
    try {
      insertRows(10);
      vi.advanceTimersByTime(200);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    expect(rowsInFile()).toBe(10);
  });

  it('reports a failing pass and keeps trying', async () => {
    const errors: Error[] = [];
    second.close();
    const checkpointer = startCheckpointer(second, { busyMs: 5, idleMs: 5, onError: (error) => errors.push(error) });
    try {
      await eventually(() => expect(errors.length).toBeGreaterThanOrEqual(3));
      expect(errors[0]!.message).toMatch(/not open/);
    } finally {
      checkpointer.stop();
    }
  });
});
