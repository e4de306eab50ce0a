/**
 * Every `hearth` command, in the order `hearth --help` lists them. One file per command in this folder, each
 * exporting `command: Command` (see ../command.ts); server/cli.ts dispatches on their names.
 */
import type { Command } from '../command.ts';
import { command as apikeyCreate } from './apikey-create.ts';
import { command as apikeyList } from './apikey-list.ts';
import { command as apikeyTokens } from './apikey-tokens.ts';
import { command as backup } from './backup.ts';
import { command as doctor } from './doctor.ts';
import { command as exportCommand } from './export.ts';
import { command as importCommand } from './import.ts';
import { command as restore } from './restore.ts';
import { command as seed } from './seed.ts';
import { command as serve } from './serve.ts';
import { command as signinLink } from './signin-link.ts';
import { command as workspaceCreate } from './workspace-create.ts';
import { command as workspaceList } from './workspace-list.ts';
import { command as workspaceSettings } from './workspace-settings.ts';

// --- other commands (export, import, seed): add one import line above and one entry in this list ---
const toolingCommands: Command[] = [exportCommand, importCommand, seed];
// --- end of other commands ---

export const commands: Command[] = [
  serve,
  signinLink,
  workspaceCreate,
  workspaceList,
  workspaceSettings,
  apikeyCreate,
  apikeyList,
  apikeyTokens,
  backup,
  restore,
  ...toolingCommands,
  doctor,
];
