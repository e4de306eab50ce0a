import { resolve } from 'node:path';
import { SEED_SIZES, SeedRefusedError } from '../../tooling/seed-options.ts';
import { seededRandom } from '../../tooling/seed-text.ts';
import type { SeedSummary } from '../../tooling/seed.ts';
import { CliError, type Command } from '../command.ts';
import {
  DATA_DIR_HELP,
  DATA_DIR_OPTIONS,
  JSON_OPTION,
  loadConfig,
  parseChoice,
  parseOptions,
  parseWholeNumber,
  printResult,
  refuseOnPostgres,
} from '../options.ts';

const NAME = 'seed';
const { small, large } = SEED_SIZES;

export const command: Command = {
  name: NAME,
  help: `Usage: hearth seed [--size small|large] [options]

Writes a demo data set into an API key: organizations with people, memberships, user groups and a folder
tree; documents with collaborative (Yjs) content that the CRDT inspector and y-websocket clients open;
comment threads with reactions; notifications; activity; recordings with small playable files (a WAV voice
note or a PNG frame); and two webhook endpoints that are disabled and point at http://127.0.0.1:9, where
nothing listens (advanced webhooks are turned on if the key had no configuration; nothing is sent).

A new data dir is created as the first start creates it (default workspace, testing key, credentials.json).
Stop the server first: a data dir a running server holds is refused. The same --seed gives the same data;
seeding an API key again with the same --seed (whatever the size) is refused, another --seed adds a second,
separate set. A seed that fails is undone; no webhook events or e-mails are produced by it.

Sizes:
  small   ${small.organizations} organizations, ${small.documents} documents, ${small.notifications} notifications (about a second)
  large   ${large.organizations} organizations, ${large.documents.toLocaleString('en-US')} documents (${large.crdtDocuments.toLocaleString('en-US')} with content), ${large.notifications.toLocaleString('en-US')} notifications,
          ${large.annotations.toLocaleString('en-US')} comment threads: the benchmarks' data set (minutes, and about 1.6 GB)

Options:
  --size small|large      how much to write (default small)
  --api-key ID            the API key to fill (default: the default workspace's testing key)
  --seed N                the random seed (a whole number; default 1)
${DATA_DIR_HELP}
  --json                  a summary: { apiKeyId, organizations, rows, webhookEndpoints, durationMs, databaseBytes, ... }

Example:
  npx hearth seed --data-dir ./demo && npm start -- --data-dir ./demo
`,
  async run(argv, io) {
    const { values } = parseOptions(NAME, argv, {
      ...DATA_DIR_OPTIONS,
      ...JSON_OPTION,
      size: { type: 'string' },
      'api-key': { type: 'string' },
      seed: { type: 'string' },
    });
    const size = parseChoice('size', values.size, ['small', 'large'] as const) ?? 'small';
    const seed = parseWholeNumber('seed', values.seed) ?? 1;
    if (values['api-key'] !== undefined && values['api-key'].trim() === '') throw new CliError('--api-key takes an API key id');
    const config = loadConfig(io, values);
    const { dataDir } = config;
    refuseOnPostgres(config, 'seed', 'seed a SQLite data dir and move it up with hearth export and hearth import (README, PostgreSQL)');
    // the server's modules load only now: the CLI's help and other commands stay fast
    const { seedDataDir } = await import('../../tooling/seed.ts');
    const progress = io.progress(`Seeding (${size})`);
    let summary: SeedSummary;
    try {
      let last = 0;
      summary = await seedDataDir({
        dataDir,
        size,
        ...(values['api-key'] === undefined ? {} : { apiKeyId: values['api-key'] }),
        random: seededRandom(seed),
        onProgress(done, total) {
          progress.tick(done - last, total);
          last = done;
        },
      });
    } catch (error) {
      if (error instanceof SeedRefusedError) throw new CliError(error.message);
      throw error;
    }
    progress.done();
    printResult(io, values.json, { seed, ...summary }, () => describe(summary, seed));
  },
};

/** How to serve a data dir from here: `npm start`, with the data dir when it is not the default ./data. */
function startCommand(dataDir: string): string {
  return resolve(dataDir) === resolve('data') ? 'npm start' : `npm start -- --data-dir ${dataDir}`;
}

function describe(s: SeedSummary, seed: number): string {
  const n = (key: string) => (s.rows[key] ?? 0).toLocaleString('en-US');
  return [
    `Seeded API key ${s.apiKeyId} in ${s.dataDir} (size ${s.size}, seed ${seed}) in ${(s.durationMs / 1000).toFixed(1)} s:`,
    `  organizations  ${s.organizations.map((o) => o.id).join(', ')}`,
    `  ${n('users')} users, ${n('memberships')} memberships, ${n('userGroups')} groups, ${n('folders')} folders`,
    `  ${n('documents')} documents (${n('crdtDocuments')} with collaborative content, editor "${s.crdt.editorId}")`,
    `  ${n('commentAnnotations')} comment threads, ${n('comments')} comments, ${n('reactions')} reactions`,
    `  ${n('notifications')} notifications (${n('notificationRecipients')} recipients), ${n('activities')} activities`,
    `  ${n('recordings')} recordings, ${n('webhookEndpoints')} webhook endpoints (disabled)`,
    ...s.notes.map((note) => `  ${note}`),
    `  database ${(s.databaseBytes / 1e6).toFixed(1)} MB, attachments ${(s.attachmentBytes / 1e3).toFixed(0)} kB`,
    `Start it with: ${startCommand(s.dataDir)}   (credentials in ${s.credentialsFile})`,
  ].join('\n');
}
