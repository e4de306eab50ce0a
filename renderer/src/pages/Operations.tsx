import { useState } from 'preact/hooks';
import { ErrorBox, PageHead } from '../components/ui.tsx';
import { links } from '../lib/links.ts';
import { loadOperations } from '../lib/openapi.ts';
import { useLoad } from '../lib/use.ts';

/** Every operation of the interface, searchable, each opening in the explorer. */
export default function Operations() {
  const ops = useLoad(loadOperations, []);
  const [q, setQ] = useState('');
  const shown = (ops.data?.operations ?? []).filter((o) => !q || `${o.path} ${o.summary}`.toLowerCase().includes(q.toLowerCase()));
  return (
    <>
      <PageHead title="Operations" />
      <p>
        Every operation is <code>POST</code> with a JSON body <code>{'{"data": {…}}'}</code>. The machine-readable list is at{' '}
        <a href="/openapi.json">/openapi.json</a>. <span id="operations">{ops.data?.operations.length ?? ''}</span> paths.
      </p>
      <ErrorBox error={ops.error} />
      <div class="filters" role="search">
        <label>
          <span>Search</span>
          <input type="search" value={q} onInput={(e) => setQ((e.target as HTMLInputElement).value)} placeholder="path or words" />
        </label>
      </div>
      <table id="operation-list">
        <caption class="visually-hidden">Operations</caption>
        <thead>
          <tr>
            <th scope="col">Path</th>
            <th scope="col">Auth</th>
            <th scope="col">What it does</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((o) => (
            <tr key={o.path}>
              <td>
                <a href={links.explorer(o.path)}>{o.path}</a>
              </td>
              <td>{o.auth === 'apiKey' ? 'API key' : o.auth}</td>
              <td>{o.summary}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
