// A user: memberships (with links to what they are members of), what they can open and why, where they are
// connected now, activity, comments, notifications, and their data export.
import { useState } from 'preact/hooks';
import type { MembershipItem, UserAccessAnswer } from '../../../shared/admin.ts';
import { Activity, Notifications } from '../components/Feed.tsx';
import { Table } from '../components/Table.tsx';
import { ErrorBox, Facts, Loading, PageHead, Section, Status, Tabs, type Said } from '../components/ui.tsx';
import { api, dataOf, type OperationAnswer } from '../lib/api.ts';
import { time } from '../lib/format.ts';
import { links } from '../lib/links.ts';
import { useLocation, type Params } from '../lib/router.ts';
import { type Loaded, useInterval, useLoad } from '../lib/use.ts';
import { OpForm } from '../components/Edit.tsx';
import { MemberActions } from '../edit/organization.tsx';

export default function User({ params }: { params: Params }) {
  const apiKey = params.apiKey as string;
  const userId = params.userId as string;
  const { query } = useLocation();
  const tab = query.get('tab') ?? 'memberships';
  // every edit bumps the version: the user and their memberships load again
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
  const user = useLoad(() => api.user(apiKey, userId), [apiKey, userId, version]);
  const access = useLoad(() => api.userAccess(apiKey, userId), [apiKey, userId, version]);
  const u = user.data;
  const [org, setOrg] = useState('');
  const organizationId = org || u?.organizations[0] || '';
  return (
    <>
      <PageHead
        title={u?.user.name || userId}
        crumbs={[{ label: `Key ${apiKey}`, href: links.key(apiKey) }, { label: 'Users', href: links.users(apiKey) }, { label: userId }]}
      />
      <ErrorBox error={user.error} />
      {!u && !user.error && <Loading />}
      {u && (
        <>
          <Facts
            id="user-facts"
            items={[
              ['Id', <code>{u.user.id}</code>],
              ['E-mail', u.user.email ?? '—'],
              [
                'Organizations',
                u.organizations.length
                  ? u.organizations.map((o, i) => (
                      <>
                        {i > 0 && ', '}
                        <a href={links.organization(apiKey, o)}>{o}</a>
                      </>
                    ))
                  : 'none',
              ],
              [
                'Groups',
                access.data ? (
                  access.data.groups.length ? (
                    <span id="user-groups">
                      {access.data.groups.map((g, i) => (
                        <>
                          {i > 0 && ', '}
                          <a href={links.organization(apiKey, g.organizationId)} data-group={g.id}>
                            {g.name || g.id}
                          </a>{' '}
                          <span class="muted">({g.organizationId})</span>
                        </>
                      ))}
                    </span>
                  ) : (
                    'none'
                  )
                ) : (
                  '…'
                ),
              ],
              ['Notifications to them', u.notifications.toLocaleString('en-US')],
              ['Connected now', <PresenceNow apiKey={apiKey} userId={userId} />],
            ]}
          />
          {organizationId && (
            <details class="edit" id="user-edit">
              <summary>Edit this user</summary>
              <OpForm
                id="user-update"
                title={`Profile (as seen in ${organizationId})`}
                apiKey={apiKey}
                op="/v2/users/update"
                at={['users']}
                fields={['name', 'email']}
                initial={{ ...(u.user.name ? { name: u.user.name } : {}), ...(u.user.email ? { email: u.user.email } : {}) }}
                keep
                build={(v) => ({ organizationId, users: [{ userId, ...v }] })}
                submitLabel="Save"
                done={() => 'Saved.'}
                onDone={changed}
              />
              <OpForm
                id="user-permission"
                title={`Grant a role in ${organizationId} (auth permissions)`}
                apiKey={apiKey}
                op="/v2/auth/permissions/add"
                at={['permissions', 'resources']}
                fields={['type', 'id', 'accessRole', 'expiresAt']}
                initial={{ type: 'folder', accessRole: 'viewer' }}
                build={(v) => ({ user: { userId }, permissions: { resources: [{ ...v, organizationId }] } })}
                submitLabel="Grant"
                done={(v) =>
                  `Granted ${String(v.accessRole ?? 'access')} on ${String(v.type)} ${String(v.id ?? '')}${typeof v.expiresAt === 'number' ? ` until ${time(v.expiresAt * 1000)}` : ''}.`
                }
                onDone={changed}
              />
              <p class="muted">Roles and removal: on each membership below (removing the organization membership takes the user out of it).</p>
            </details>
          )}
          <Tabs
            label="User"
            current={tab}
            tabs={[
              { id: 'memberships', label: 'Memberships' },
              { id: 'access', label: 'Can open', count: access.data?.documents.length },
              { id: 'activity', label: 'Activity' },
              { id: 'comments', label: 'Comments' },
              { id: 'notifications', label: 'Notifications', count: u.notifications },
              { id: 'export', label: 'Data export' },
            ]}
          />
          {u.organizations.length > 1 && tab !== 'memberships' && tab !== 'access' && (
            <label class="inline">
              Organization
              <select value={organizationId} onChange={(e) => setOrg((e.target as HTMLSelectElement).value)}>
                {u.organizations.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            </label>
          )}
          <div role="tabpanel" aria-labelledby={`tab-${tab}`}>
            {tab === 'memberships' && (
              <Table<MembershipItem>
                id="memberships"
                caption="Memberships"
                search={false}
                deps={[apiKey, userId, version]}
                load={(a) => api.memberships({ apiKey, userId, ...a })}
                rowKey={(m) => `${m.organizationId}/${m.level}/${m.resourceId}`}
                columns={[
                  {
                    id: 'org',
                    label: 'Organization',
                    sort: 'organization',
                    render: (m) => <a href={links.organization(apiKey, m.organizationId)}>{m.organizationId}</a>,
                  },
                  { id: 'level', label: 'Level', render: (m) => m.level },
                  {
                    id: 'resource',
                    label: 'On',
                    render: (m) =>
                      m.level === 'document' ? (
                        <a href={links.document(apiKey, m.organizationId, m.resourceId, 'access')}>{m.resourceId}</a>
                      ) : m.level === 'folder' ? (
                        <a href={links.folder(apiKey, m.organizationId, m.resourceId)}>{m.resourceId}</a>
                      ) : (
                        m.resourceId
                      ),
                  },
                  { id: 'role', label: 'Role', render: (m) => <MemberActions apiKey={apiKey} m={m} onChanged={changed} /> },
                  { id: 'expires', label: 'Expires', render: (m) => (m.expiresAt ? time(m.expiresAt) : 'never') },
                ]}
              />
            )}
            {tab === 'access' && <CanOpen apiKey={apiKey} loaded={access} />}
            {tab === 'activity' &&
              (organizationId ? <Activity scope={{ apiKey, organizationId, userId }} /> : <p class="muted">This user is in no organization.</p>)}
            {tab === 'comments' &&
              (organizationId ? (
                <Comments apiKey={apiKey} organizationId={organizationId} userId={userId} />
              ) : (
                <p class="muted">This user is in no organization.</p>
              ))}
            {tab === 'notifications' &&
              (organizationId ? <Notifications scope={{ apiKey, organizationId, userId }} /> : <p class="muted">This user is in no organization.</p>)}
            {tab === 'export' && <Export apiKey={apiKey} organizationId={organizationId} userId={userId} />}
          </div>
        </>
      )}
    </>
  );
}

/**
 * The documents the user has open now (websockets opened with their token, on this instance), with the presence
 * their app set (a name, a cursor…); read again every 5 s.
 */
function PresenceNow({ apiKey, userId }: { apiKey: string; userId: string }) {
  const presence = useLoad(() => api.userPresence(apiKey, userId), [apiKey, userId]);
  useInterval(presence.reload, 5_000);
  const p = presence.data;
  if (presence.error) return <span class="error">{presence.error}</span>;
  if (!p) return <span>…</span>;
  if (p.documents.length === 0) return <span id="user-presence">no document open</span>;
  return (
    <ul id="user-presence">
      {p.documents.map((d) => (
        <li key={`${d.organizationId}/${d.documentId}/${d.editorId}`} data-doc={`${d.organizationId}/${d.documentId}/${d.editorId}`}>
          <a href={links.crdt(apiKey, d.organizationId, d.documentId, d.editorId)}>{`${d.organizationId} / ${d.documentId} / ${d.editorId}`}</a>{' '}
          <span class="muted">
            {d.connections === 1 ? '1 connection' : `${d.connections} connections`}, {d.writable ? 'editing' : 'reading'}
          </span>
          {d.states.map((state, i) => (
            <code key={i} class="presence-state">
              {short(JSON.stringify(state))}
            </code>
          ))}
        </li>
      ))}
    </ul>
  );
}

const short = (text: string) => (text.length > 160 ? `${text.slice(0, 159)}…` : text);

/** Every document the user can open, with the role and why (the access resolver's own reasons). */
function CanOpen({ apiKey, loaded }: { apiKey: string; loaded: Loaded<UserAccessAnswer> }) {
  const a = loaded.data;
  return (
    <Section title="Documents they can open, and why" id="can-open">
      <ErrorBox error={loaded.error} />
      {!a && !loaded.error && <Loading />}
      {a && (
        <>
          <p class="muted">
            {a.documents.length.toLocaleString('en-US')} of the {a.checked.toLocaleString('en-US')} documents of their organizations
            {a.truncated ? ' (only the first 2,000 of each of their first 20 organizations were checked)' : ''}, as the access resolver decides for the
            websocket and the operations.
          </p>
          <table id="can-open-list">
            <caption class="visually-hidden">Documents the user can open</caption>
            <thead>
              <tr>
                <th scope="col">Document</th>
                <th scope="col">Organization</th>
                <th scope="col">Role</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {a.documents.map((d) => (
                <tr key={`${d.organizationId}/${d.documentId}`} data-document={d.documentId}>
                  <td>
                    <a href={links.document(apiKey, d.organizationId, d.documentId, 'access')}>{d.name ? `${d.name} (${d.documentId})` : d.documentId}</a>
                  </td>
                  <td>{d.organizationId}</td>
                  <td>{d.accessRole ?? ''}</td>
                  <td>
                    <ul>
                      {d.reasons.map((r, i) => (
                        <li key={i}>{r}</li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
              {a.documents.length === 0 && (
                <tr>
                  <td colSpan={4} class="muted">
                    No document: no membership grants access to any.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </>
      )}
    </Section>
  );
}

interface ExportedComment {
  annotation: { annotationId?: string; documentId?: string };
  comment: { commentId?: string; commentText?: string; createdAt?: number; lastUpdated?: number } | null;
}

/** The comments the user wrote in one organization (the first page of /v2/users/data/get, the newest last). */
function Comments({ apiKey, organizationId, userId }: { apiKey: string; organizationId: string; userId: string }) {
  const list = useLoad(
    async () => dataOf<{ comments: ExportedComment[] }>(await api.call('/v2/users/data/get', apiKey, { organizationId, userId })).comments,
    [apiKey, organizationId, userId],
  );
  return (
    <Section title={`Comments they wrote in ${organizationId}`} id="user-comments">
      <ErrorBox error={list.error} />
      {list.data?.length === 0 && <p class="muted">No comments.</p>}
      <ul id="user-comment-list">
        {(list.data ?? []).map((c, i) => (
          <li key={c.comment?.commentId ?? i} data-annotation={c.annotation.annotationId}>
            {c.annotation.documentId ? (
              <a href={links.document(apiKey, organizationId, c.annotation.documentId, 'comments')}>{c.annotation.documentId}</a>
            ) : (
              'no document'
            )}
            : {c.comment?.commentText ?? ''}
          </li>
        ))}
      </ul>
    </Section>
  );
}

/** The user's data as /v2/users/data/get gives it, every page, downloaded as one JSON file. */
function Export({ apiKey, organizationId, userId }: { apiKey: string; organizationId: string; userId: string }) {
  const [said, setSaid] = useState<Said | null>(null);
  const [file, setFile] = useState<{ href: string; name: string } | null>(null);
  const run = async () => {
    setSaid({ text: 'Collecting…', tone: 'info' });
    try {
      const pages: unknown[] = [];
      let pageToken: string | null = null;
      do {
        const answer: OperationAnswer = await api.call('/v2/users/data/get', apiKey, { organizationId, userId, ...(pageToken ? { pageToken } : {}) });
        pages.push(dataOf<unknown>(answer));
        pageToken = answer.body.result?.nextPageToken ?? null;
      } while (pageToken);
      const blob = new Blob([JSON.stringify(pages.length === 1 ? pages[0] : pages, null, 2)], { type: 'application/json' });
      const name = `user-data-${organizationId}-${userId}.json`;
      setFile({ href: URL.createObjectURL(blob), name });
      setSaid({ text: `Ready: ${name}`, tone: 'ok' });
    } catch (e) {
      setSaid({ text: e instanceof Error ? e.message : String(e), tone: 'bad' });
    }
  };
  return (
    <Section title="Data export" id="export">
      <p>
        Everything Hearth holds about this user in {organizationId || 'the organization'}: comments, reactions, notifications, recordings (the
        /v2/users/data/get operation).
      </p>
      <div class="row">
        <button type="button" id="export-user" onClick={() => void run()} disabled={!organizationId}>
          Prepare the JSON
        </button>
        {file && (
          <a id="export-link" href={file.href} download={file.name}>
            Download {file.name}
          </a>
        )}
      </div>
      <Status said={said} id="export-status" />
    </Section>
  );
}
