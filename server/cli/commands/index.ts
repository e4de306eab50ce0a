/**
 * Every `hearth` command, in the order `hearth --help` lists them. One file per command in this folder, each
 * exporting `command: Command` (see ../command.ts).
 */
import type { Command } from '../command.ts';

// Commands of the CLI framework itself (serve, workspace, apikey, backup, restore, doctor) are added here.
const frameworkCommands: Command[] = [];

// Commands written by other parts of issue 10 (export, import, seed): append one import and one entry each.
// --- other commands: append below this line ---
const toolingCommands: Command[] = [];
// --- end of other commands ---

export const commands: Command[] = [...frameworkCommands, ...toolingCommands];
