/**
 * The shape of a `hearth` CLI command. One file per command under server/cli/commands/, listed in
 * server/cli/commands/index.ts; server/cli.ts (the `npm start` / `hearth` entry) finds the command by its name,
 * prints its `help` for `--help`, and turns a thrown CliError into a one-line message and its exit code.
 */
import type { LogFormat } from '../config.ts';
import type { Progress } from './progress.ts';

export interface CliIO {
  /** Normal output (a result, or JSON with --json). */
  out(text: string): void;
  /** Messages for a person: warnings, progress lines when stdout is not a TTY. */
  err(text: string): void;
  /** A progress reporter: a redrawn bar on a TTY, plain lines (every 10 % or so) otherwise, silent with --json. */
  progress(label: string, total?: number): Progress;
  env: NodeJS.ProcessEnv;
  /** stderr is a terminal (progress bars are drawn), else plain lines. */
  isTTY: boolean;
  /**
   * The log format of the configuration a command resolved (loadConfig sets it): the failure that ends the command
   * is written in it. Before a configuration is resolved, LOG_FORMAT of `env` decides.
   */
  logFormat?: LogFormat;
}

export interface Command {
  /** `workspace create`, `export`, …: the words a user types, space-separated. */
  name: string;
  /** The whole `--help` text of this command: usage, every option, an example. */
  help: string;
  /** `argv` is what follows the command's words. Returns the exit code (0 when omitted). */
  run(argv: string[], io: CliIO): Promise<number | void>;
}

/**
 * A command as the CLI lists it: its name and one line, and how to load the rest. Commands load on use, so that
 * `hearth --help` and one command start without the code of all the others (commands/index.ts).
 */
export interface CommandEntry {
  name: string;
  /** One line for the command list. */
  summary: string;
  load(): Promise<Command>;
}

/** A user's mistake (bad flag, missing file, refused action): printed as one line, exit code 2 by default. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
