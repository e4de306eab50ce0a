/**
 * The `hearth` CLI and `npm start`: with no command word it runs the server (the runtime contract of
 * DESIGN §1: --port --host --data-dir, PORT HOST DATA_DIR HEADER_BRAND LOG_LEVEL …). The commands live one per
 * file in server/cli/commands/.
 */
import { commands } from './cli/commands/index.ts';
import { processIO, runCli } from './cli/run.ts';

const argv = process.argv.slice(2);
const code = await runCli(argv, processIO(argv), commands);
// Exit once stdout and stderr are flushed (a piped --json result must not be cut), even if a timer lingers.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
