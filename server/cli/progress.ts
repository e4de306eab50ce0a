/** Progress of long work (export, import, seed, backup): a bar redrawn in place on a TTY, plain lines otherwise. */
export interface Progress {
  /** Adds `n` (default 1) done units; `total` may be set or changed later. */
  tick(n?: number, total?: number): void;
  /** Finishes the line (a final 100 % line when plain). */
  done(message?: string): void;
}

const silent: Progress = { tick() {}, done() {} };

export function createProgress(
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
  label: string,
  total: number | undefined,
  options: { quiet?: boolean } = {},
): Progress {
  if (options.quiet) return silent;
  let done = 0;
  let lastDecile = -1;
  let lastDraw = 0;
  const tty = stream.isTTY === true;
  const describe = () => (total ? `${label} ${done}/${total} (${Math.floor((done / total) * 100)}%)` : `${label} ${done}`);
  const draw = (force: boolean) => {
    if (tty) {
      const now = Date.now();
      if (!force && now - lastDraw < 100) return;
      lastDraw = now;
      const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - label.length - 30));
      const fraction = total ? Math.min(1, done / total) : 0;
      const bar = total ? `[${'#'.repeat(Math.round(fraction * width)).padEnd(width, '.')}] ` : '';
      stream.write(`\r${bar}${describe()}\u001b[K`);
      return;
    }
    const decile = total ? Math.floor((done / total) * 10) : Math.floor(Math.log10(Math.max(1, done)));
    if (force || decile > lastDecile) {
      lastDecile = decile;
      stream.write(`${describe()}\n`);
    }
  };
  return {
    tick(n = 1, newTotal) {
      if (newTotal !== undefined) total = newTotal;
      done += n;
      draw(false);
    },
    done(message) {
      if (tty) stream.write(`\r${describe()}${message ? ` ${message}` : ''}\u001b[K\n`);
      // plain lines: the last one already says 100 % unless there is more to say
      else if (message || !(total && done >= total && lastDecile >= 10)) stream.write(`${describe()}${message ? ` ${message}` : ''}\n`);
    },
  };
}
