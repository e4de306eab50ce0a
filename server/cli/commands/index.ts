/**
 * Every `hearth` command, in the order `hearth --help` lists them: its name, one line, and its module, loaded
 * only when the command runs or shows its help (so `hearth --help` and `hearth serve` load nothing of the
 * others). One file per command in this folder, each exporting `command: Command` (see ../command.ts);
 * server/cli/run.ts dispatches on the names. test/cli/commands.test.ts checks each module's name against its entry.
 */
import type { Command, CommandEntry } from '../command.ts';

const entry = (name: string, summary: string, load: () => Promise<{ command: Command }>): CommandEntry => ({
  name,
  summary,
  load: async () => (await load()).command,
});

export const commands: CommandEntry[] = [
  entry('serve', 'run the server (the default command: npm start)', () => import('./serve.ts')),
  entry('exec', 'run a command against a throwaway Hearth in testing mode, then exit with its code', () => import('./exec.ts')),
  entry('signin-link', "a new one-time link that signs a browser in to the running server's admin UI", () => import('./signin-link.ts')),
  entry('workspace create', 'create a workspace with its testing API key and auth token', () => import('./workspace-create.ts')),
  entry('workspace list', 'list the workspaces with their plan and production-key settings', () => import('./workspace-list.ts')),
  entry('workspace settings', "show or change a workspace's plan and production-key settings", () => import('./workspace-settings.ts')),
  entry('workspace rotate-token', "replace a workspace's auth token (the old one is refused at once)", () => import('./workspace-rotate-token.ts')),
  entry('apikey create', 'create an API key (testing or production) with an auth token', () => import('./apikey-create.ts')),
  entry('apikey list', "list a workspace's API keys", () => import('./apikey-list.ts')),
  entry('apikey tokens', "show an API key's auth tokens", () => import('./apikey-tokens.ts')),
  entry('mail list', 'the mail Hearth wrote (login links, notifications) with its relay state over SMTP', () => import('./mail-list.ts')),
  entry('backup', 'an online, consistent copy of the data dir (safe while the server runs)', () => import('./backup.ts')),
  entry('restore', 'put a backup in place as the data dir (refused while a server runs on it)', () => import('./restore.ts')),
  entry('export', 'the state of the data dir (or one workspace, or one API key) as a portable archive directory', () => import('./export.ts')),
  entry('import', 'load an archive made by hearth export into a data dir (empty or populated)', () => import('./import.ts')),
  entry('seed', 'fill an API key with a realistic demo data set (small for a first look, large for benchmarks)', () => import('./seed.ts')),
  entry(
    'fixtures load',
    'load a fixtures file (workspaces, keys with fixed tokens, documents, users, content…) into a data dir',
    () => import('./fixtures-load.ts'),
  ),
  entry('doctor', 'check the data dir, master key, database, schema version, free disk and the port', () => import('./doctor.ts')),
];
