import type { Command } from '../command.ts';
import { DATA_DIR_HELP, DATA_DIR_OPTIONS, JSON_OPTION, loadConfig, parseOptions, parseWholeNumber, printResult, withDataDir } from '../options.ts';

const NAME = 'mail list';

export const command: Command = {
  name: NAME,
  help: `Usage: hearth mail list [options]

Lists the mail Hearth wrote (login links, notification e-mails), newest first, with its relay state:
  kept     in the local mailbox only (written while SMTP_URL was not set; never relayed later)
  queued   waiting to be relayed over SMTP (with the last error while the SMTP server refuses or is down)
  sent     relayed
  failed   refused by the SMTP server, or out of attempts (the last error says why)
  skipped  not relayed: its login link was used or had expired before it could go out
The bodies are not printed (login links are secrets); the admin UI's mailbox shows them. Safe while the
server runs.

Options:
  --limit N               how many (default 50)
${DATA_DIR_HELP}
  --json                  an array of { id, kind, to, subject, status, attempts, lastError, createdAt, sentAt }

Example:
  npx hearth mail list --limit 10
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, { ...DATA_DIR_OPTIONS, ...JSON_OPTION, limit: { type: 'string' } });
    const limit = parseWholeNumber('limit', values.limit) ?? 50;
    const config = loadConfig(io, values);
    const rows = await withDataDir(config, async (app) =>
      (await app.mail.list({ limit })).map(({ id, kind, to, subject, status, attempts, lastError, createdAt, sentAt }) => ({
        id,
        kind,
        to,
        subject,
        status,
        attempts,
        lastError,
        createdAt,
        sentAt,
      })),
    );
    printResult(io, values.json, rows, () =>
      rows.length === 0
        ? 'No mail yet.'
        : rows
            .map(
              (m) =>
                `${new Date(m.createdAt).toISOString()}  ${m.status.padEnd(7)}  ${m.to}  ${m.subject}${m.attempts ? `  (${m.attempts} attempt${m.attempts === 1 ? '' : 's'})` : ''}${m.lastError ? `\n    ${m.lastError}` : ''}`,
            )
            .join('\n'),
    );
  },
};
