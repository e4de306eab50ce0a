// A document: its editors' content (the live view), who can open it and why, comments, notifications, activity
// and recordings, each a tab whose choice is in the URL.
import { useState } from 'preact/hooks';
import type { AnnotationView, RecordingView } from '../../../shared/admin.ts';
import { Activity, Notifications } from '../components/Feed.tsx';
import { Picker } from '../components/Picker.tsx';
import { Badge, ErrorBox, Facts, Loading, PageHead, Section, Sparkline, Tabs } from '../components/ui.tsx';
import { api, dataOf } from '../lib/api.ts';
import { ago, bytes } from '../lib/format.ts';
import { links } from '../lib/links.ts';
import { useLocation, type Params } from '../lib/router.ts';
import { useLoad } from '../lib/use.ts';
import { DocumentMemberActions, DocumentSettings, NewCommentThread, NewDocumentMember, SendNotification } from '../edit/document.tsx';

export default function DocumentPage({ params }: { params: Params }) {
  const apiKey = params.apiKey as string;
  const organizationId = params.organizationId as string;
  const documentId = params.documentId as string;
  const { query } = useLocation();
  const tab = query.get('tab') ?? 'content';
  // every edit bumps the version: the document and its tabs load again
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
  const doc = useLoad(() => api.document(apiKey, organizationId, documentId), [apiKey, organizationId, documentId, version]);
  const d = doc.data;
  const orgHref = links.organization(apiKey, organizationId);
  return (
    <>
      <PageHead
        title={d?.document.name || documentId}
        crumbs={[
          { label: `Key ${apiKey}`, href: links.key(apiKey) },
          { label: 'Organizations', href: links.organizations(apiKey) },
          { label: organizationId, href: orgHref },
          ...(d?.path ?? []).map((f) => ({ label: `${f.name || f.id}/`, href: links.folder(apiKey, organizationId, f.id) })),
          { label: documentId },
        ]}
      >
        {d?.document.disabled && <Badge tone="bad">disabled</Badge>}
        {d && <Sparkline values={d.activity.map((a) => a.count)} label="activity, last 30 days" />}
      </PageHead>
      <ErrorBox error={doc.error} />
      {!d && !doc.error && <Loading />}
      {d && (
        <>
          <Facts
            items={[
              ['Access type', d.document.accessType],
              [
                'Folder',
                d.document.folderId ? (
                  <a href={links.folder(apiKey, organizationId, d.document.folderId)}>{d.document.folderId}</a>
                ) : (
                  'none (organization root)'
                ),
              ],
            ]}
          />
          {d.document.updatedAt !== null && (
            // one form state per document: Undo and typed values never carry over to another document shown here
            <DocumentSettings key={`${apiKey}/${organizationId}/${documentId}`} apiKey={apiKey} d={d} onChanged={changed} />
          )}
          <Tabs
            label="Document"
            current={tab}
            tabs={[
              { id: 'content', label: 'Content', count: d.editors.length },
              { id: 'access', label: 'Access' },
              { id: 'comments', label: 'Comments', count: d.counts.comments },
              { id: 'notifications', label: 'Notifications', count: d.counts.notifications },
              { id: 'activity', label: 'Activity', count: d.counts.activities },
              { id: 'recordings', label: 'Recordings', count: d.counts.recordings },
            ]}
          />
          <div role="tabpanel" aria-labelledby={`tab-${tab}`}>
            {tab === 'content' &&
              (d.editors.length === 0 ? (
                <p class="muted">No collaborative content: nothing was written over /v2/crdt/* or y-websocket for this document.</p>
              ) : (
                <table id="editors">
                  <caption class="visually-hidden">Collaborative editors of this document</caption>
                  <thead>
                    <tr>
                      <th scope="col">Editor</th>
                      <th scope="col">Type</th>
                      <th scope="col" class="num">
                        Log
                      </th>
                      <th scope="col" class="num">
                        Snapshot
                      </th>
                      <th scope="col" class="num">
                        Clients
                      </th>
                      <th scope="col">Updated</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.editors.map((e) => (
                      <tr key={e.editorId} data-editor={e.editorId}>
                        <td>
                          <a href={links.crdt(apiKey, organizationId, documentId, e.editorId)}>{e.editorId}</a>
                        </td>
                        <td>
                          {e.type} <span class="muted">({e.contentKey})</span>
                        </td>
                        <td class="num">{e.updateCount}</td>
                        <td class="num">{bytes(e.snapshotBytes)}</td>
                        <td class="num">{e.connections}</td>
                        <td>
                          {ago(e.updatedAt)} {e.lastUpdatedBy && <span class="muted">by {e.lastUpdatedBy}</span>}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ))}
            {tab === 'access' && <Access apiKey={apiKey} organizationId={organizationId} documentId={documentId} version={version} onChanged={changed} />}
            {tab === 'comments' && <Comments apiKey={apiKey} organizationId={organizationId} documentId={documentId} version={version} onChanged={changed} />}
            {tab === 'notifications' && (
              <>
                <Notifications scope={{ apiKey, organizationId, documentId }} version={version} />
                <Section title="Send a notification" id="notification-new">
                  <SendNotification apiKey={apiKey} organizationId={organizationId} documentId={documentId} onChanged={changed} />
                </Section>
              </>
            )}
            {tab === 'activity' && <Activity scope={{ apiKey, organizationId, documentId }} />}
            {tab === 'recordings' && <Recordings apiKey={apiKey} organizationId={organizationId} documentId={documentId} />}
          </div>
        </>
      )}
    </>
  );
}

type Where = { apiKey: string; organizationId: string; documentId: string };

/** The role of a user's document membership, from the access resolver's reasons (`editor through document membership`). */
const documentRole = (reasons: string[]) => reasons.map((r) => /^(viewer|editor) through document membership$/.exec(r)?.[1]).find(Boolean);

/** Who can open the document, and why: everyone with a membership in the organization, and any user asked about. */
function Access({ apiKey, organizationId, documentId, version, onChanged }: Where & { version: number; onChanged: () => void }) {
  const [asked, setAsked] = useState('');
  const [ask, setAsk] = useState('');
  const access = useLoad(
    () => api.access({ apiKey, organizationId, documentId, ...(ask ? { userId: ask } : {}) }),
    [apiKey, organizationId, documentId, ask, version],
  );
  return (
    <Section title="Who can open it, and why" id="access">
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setAsk(asked.trim());
        }}
      >
        <label>
          <span>Check a user</span>
          <Picker id="access-user" kind="user" apiKey={apiKey} value={asked} placeholder="user id or name" onInput={setAsked} />
        </label>
        <button type="submit">Check</button>
      </form>
      <ErrorBox error={access.error} />
      <table id="access-list">
        <caption class="visually-hidden">Users and their access to this document</caption>
        <thead>
          <tr>
            <th scope="col">User</th>
            <th scope="col">Access</th>
            <th scope="col">Why</th>
            <th scope="col">Document membership</th>
          </tr>
        </thead>
        <tbody>
          {(access.data?.users ?? []).map((u) => (
            <tr key={u.userId} data-user={u.userId} class={u.access ? '' : 'bad'}>
              <td>
                <a href={links.user(apiKey, u.userId)}>{u.name ? `${u.name} (${u.userId})` : u.userId}</a>
              </td>
              <td>{u.access ? (u.accessRole ?? 'yes') : 'no access'}</td>
              <td>
                <ul>
                  {u.reasons.map((r, i) => (
                    <li key={i}>{r}</li>
                  ))}
                </ul>
              </td>
              <td>
                {documentRole(u.reasons) && (
                  <DocumentMemberActions
                    apiKey={apiKey}
                    organizationId={organizationId}
                    documentId={documentId}
                    userId={u.userId}
                    role={documentRole(u.reasons) as string}
                    onChanged={onChanged}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <NewDocumentMember apiKey={apiKey} organizationId={organizationId} documentId={documentId} onChanged={onChanged} />
    </Section>
  );
}

function Comments({ apiKey, organizationId, documentId, version, onChanged }: Where & { version: number; onChanged: () => void }) {
  const list = useLoad(
    async () => dataOf<AnnotationView[]>(await api.call('/v2/commentannotations/get', apiKey, { organizationId, documentId })),
    [apiKey, organizationId, documentId, version],
  );
  return (
    <Section title="Comment threads" id="comments">
      <ErrorBox error={list.error} />
      {list.data?.length === 0 && <p class="muted">No comments.</p>}
      <table id="comment-list">
        <caption class="visually-hidden">Comment threads</caption>
        <thead>
          <tr>
            <th scope="col">Thread</th>
            <th scope="col">Status</th>
            <th scope="col">Comments</th>
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).map((a) => (
            <tr key={a.annotationId} data-annotation={a.annotationId}>
              <td class="id">{a.annotationId}</td>
              <td>{a.status?.name ?? a.status?.id ?? ''}</td>
              <td>
                <ul>
                  {a.comments.map((c, i) => (
                    <li key={i}>
                      {c.from ? <a href={links.user(apiKey, c.from.userId)}>{c.from.name ?? c.from.userId}</a> : 'someone'}: {c.commentText ?? ''}
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <NewCommentThread apiKey={apiKey} organizationId={organizationId} documentId={documentId} onChanged={onChanged} />
    </Section>
  );
}

function Recordings({ apiKey, organizationId, documentId }: Where) {
  const list = useLoad(
    async () => dataOf<RecordingView[]>(await api.call('/v2/recordings/get', apiKey, { organizationId, documentId })),
    [apiKey, organizationId, documentId],
  );
  return (
    <Section title="Recordings" id="recordings">
      <ErrorBox error={list.error} />
      {list.data?.length === 0 && <p class="muted">No recordings.</p>}
      <div id="recording-list">
        {(list.data ?? []).map((r) => (
          <div class="recording" key={r.annotationId} data-recording={r.annotationId}>
            <p>
              {r.displayName ?? r.annotationId} {r.recordedTime && `(${r.recordedTime.display})`}
            </p>
            {r.attachments.map((file) =>
              file.mimeType.startsWith('video/') ? (
                <video key={file.url} controls preload="metadata" src={file.url} aria-label={file.name} />
              ) : file.mimeType.startsWith('audio/') ? (
                <audio key={file.url} controls preload="metadata" src={file.url} aria-label={file.name} />
              ) : file.mimeType.startsWith('image/') ? (
                <img key={file.url} src={file.url} alt={file.name} />
              ) : (
                <a key={file.url} href={file.url}>
                  {file.name}
                </a>
              ),
            )}
          </div>
        ))}
      </div>
    </Section>
  );
}
