// Emulator comforts while the server runs: export a key's data, import an export into it, and reset it to the
// seeded state (`hearth seed`'s small set).
import { useState } from 'preact/hooks';
import { PageHead, Section, Status, type Said } from '../components/ui.tsx';
import { api } from '../lib/api.ts';
import { keyLabel, useSession } from '../lib/keys.ts';

const summary = (counts: Record<string, number>) =>
  Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ') || 'nothing';

export default function DataTools() {
  const session = useSession();
  const [apiKey, setApiKey] = useState(session.keys[0]?.apiKey ?? '');
  const [said, setSaid] = useState<Said | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (what: () => Promise<string>) => {
    setBusy(true);
    setSaid({ text: 'Working…', tone: 'info' });
    try {
      setSaid({ text: await what(), tone: 'ok' });
    } catch (e) {
      setSaid({ text: e instanceof Error ? e.message : String(e), tone: 'bad' });
    } finally {
      setBusy(false);
    }
  };
  const reset = () =>
    run(async () => {
      if (!confirm(`Reset every organization, user, document, notification and webhook of ${apiKey} to the seeded state?`)) return 'Nothing changed.';
      const r = await api.reset(apiKey);
      return `Reset: removed ${summary(r.removed)}; seeded ${summary(r.seeded)}.`;
    });
  const importFile = (event: Event) =>
    run(async () => {
      event.preventDefault();
      const file = (new FormData(event.currentTarget as HTMLFormElement).get('archive') as File | null) ?? null;
      if (!file || file.size === 0) throw new Error('Choose an export file (JSON) first.');
      const archive = JSON.parse(await file.text()) as unknown;
      const r = await api.importData(apiKey, archive);
      return `Imported ${summary(r.imported)}.`;
    });
  return (
    <>
      <PageHead title="Import, export, reset" />
      <p>For the API key chosen here, while the server runs. Connected clients of reset documents are disconnected and reconnect to the new content.</p>
      <label class="inline">
        API key
        <select id="data-key" value={apiKey} onChange={(e) => setApiKey((e.target as HTMLSelectElement).value)}>
          {session.keys.map((k) => (
            <option key={k.apiKey} value={k.apiKey}>
              {keyLabel(k)}
            </option>
          ))}
        </select>
      </label>
      <Status said={said} id="data-status" />
      <div class="grid">
        <Section title="Export" id="data-export">
          <p>
            Organizations, folders, documents, users, memberships, groups, notifications, activity, comments, reactions, collaborative documents and webhook
            endpoints (secrets left out) of this key, as one JSON file.
          </p>
          <a id="export-data" href={api.exportUrl(apiKey)} download>
            Download the export
          </a>
        </Section>
        <Section title="Import" id="data-import">
          <p>An export of this UI: its rows are added to this key (rows with the same ids are replaced).</p>
          <form class="row" id="import-form" onSubmit={(e) => void importFile(e)}>
            <label>
              <span>Export file</span>
              <input type="file" name="archive" accept="application/json,.json" />
            </label>
            <button type="submit" disabled={busy}>
              Import
            </button>
          </form>
        </Section>
        <Section title="Reset to the seeded state" id="data-reset">
          <p>
            Deletes everything of this key and writes the small demo set of <code>hearth seed</code> again (3 organizations).
          </p>
          <button type="button" class="danger" id="reset" disabled={busy} onClick={() => void reset()}>
            Reset…
          </button>
        </Section>
      </div>
    </>
  );
}
