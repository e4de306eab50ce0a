import { useState } from 'preact/hooks';
import type { CrdtItem, DocumentItem, MembershipItem } from '../../../shared/admin.ts';
import { Activity, Notifications } from '../components/Feed.tsx';
import { FolderTree } from '../components/FolderTree.tsx';
import { Table } from '../components/Table.tsx';
import { Badge, ErrorBox, Loading, PageHead, Section, Since, Sparkline, Tabs } from '../components/ui.tsx';
import { api, entitySort } from '../lib/api.ts';
import { time } from '../lib/format.ts';
import { links } from '../lib/links.ts';
import { useLocation, type Params } from '../lib/router.ts';
import { useLoad } from '../lib/use.ts';
import { FolderEdit, Groups, MemberActions, NewDocument, NewMember, OrganizationSettings } from '../edit/organization.tsx';

export default function Organization({ params }: { params: Params }) {
  const apiKey = params.apiKey as string;
  const organizationId = params.organizationId as string;
  const { query } = useLocation();
  const folder = query.get('folder');
  const tab = query.get('tab') ?? 'documents';
  // every edit bumps the version: the organization, its lists and its groups load again
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
  const org = useLoad(() => api.organization(apiKey, organizationId), [apiKey, organizationId, version]);
  const o = org.data;
  const folderName = folder ? (o?.folders.find((f) => f.id === folder)?.name ?? folder) : null;
  return (
    <>
      <PageHead
        title={o?.organization.name || organizationId}
        crumbs={[
          { label: `Key ${apiKey}`, href: links.key(apiKey) },
          { label: 'Organizations', href: links.organizations(apiKey) },
          { label: organizationId, href: links.organization(apiKey, organizationId) },
          ...(folderName ? [{ label: `${folderName}/` }] : []),
        ]}
      >
        {o?.organization.disabled && <Badge tone="bad">disabled</Badge>}
        {o && <Sparkline values={o.activity.map((a) => a.count)} label="activity, last 30 days" />}
      </PageHead>
      <ErrorBox error={org.error} />
      {!o && !org.error && <Loading />}
      {o && (
        <div class="split">
          <div>
            <Section title="Folders" id="folders">
              <p>
                <a href={links.organization(apiKey, organizationId)} aria-current={folder ? undefined : 'true'}>
                  All documents
                </a>
              </p>
              <FolderTree folders={o.folders} current={folder} hrefOf={(id) => links.folder(apiKey, organizationId, id)} />
              {o.foldersTruncated && <p class="muted">Only the first 2,000 folders are shown.</p>}
              <details class="edit" id="folders-edit" open={!!folder}>
                <summary>{folder ? 'Edit this folder, or add one in it' : 'New folder'}</summary>
                <FolderEdit apiKey={apiKey} organizationId={organizationId} folders={o.folders} current={folder} onChanged={changed} />
              </details>
            </Section>
            <Section title="User groups" id="groups">
              <Groups apiKey={apiKey} organizationId={organizationId} groups={o.groups} version={version} onChanged={changed} />
            </Section>
            <Section title="Organization" id="organization-settings">
              <OrganizationSettings key={`${apiKey}/${organizationId}`} apiKey={apiKey} o={o} onChanged={changed} />
            </Section>
          </div>
          <div>
            <Tabs
              label="Organization"
              current={tab}
              tabs={[
                { id: 'documents', label: 'Documents', count: o.counts.documents },
                { id: 'members', label: 'Members', count: o.counts.members },
                { id: 'notifications', label: 'Notifications', count: o.counts.notifications },
                { id: 'activity', label: 'Activity', count: o.counts.activities },
                { id: 'live', label: 'Live rooms' },
              ]}
            />
            <div role="tabpanel" aria-labelledby={`tab-${tab}`}>
              {tab === 'documents' && <NewDocument apiKey={apiKey} organizationId={organizationId} folder={folder} onChanged={changed} />}
              {tab === 'documents' && (
                <Table<DocumentItem>
                  id="documents"
                  caption="Documents"
                  deps={[apiKey, organizationId, folder, version]}
                  load={(a) => api.documents({ apiKey, organizationId, ...(folder ? { folderId: folder } : {}), ...a, sort: entitySort(a.sort) })}
                  rowKey={(d) => d.id}
                  rowData={(d) => ({ document: d.id })}
                  columns={[
                    { id: 'id', label: 'Id', sort: 'id', class: 'id', render: (d) => <a href={links.document(apiKey, organizationId, d.id)}>{d.id}</a> },
                    { id: 'name', label: 'Name', sort: 'name', render: (d) => d.name ?? '' },
                    {
                      id: 'folder',
                      label: 'Folder',
                      render: (d) => (d.folderId ? <a href={links.folder(apiKey, organizationId, d.folderId)}>{d.folderId}</a> : ''),
                    },
                    { id: 'access', label: 'Access', render: (d) => (d.disabled ? <Badge tone="bad">disabled</Badge> : d.accessType) },
                    {
                      id: 'updated',
                      label: 'Updated',
                      sort: 'updated',
                      sortDir: 'desc',
                      render: (d) => (d.updatedAt === null ? '' : <Since at={d.updatedAt} />),
                    },
                  ]}
                />
              )}
              {tab === 'members' && <NewMember apiKey={apiKey} organizationId={organizationId} onChanged={changed} />}
              {tab === 'members' && (
                <Table<MembershipItem>
                  id="members"
                  caption="Memberships"
                  deps={[apiKey, organizationId, version]}
                  load={(a) => api.memberships({ apiKey, organizationId, ...a })}
                  rowKey={(m) => `${m.userId}/${m.level}/${m.resourceId}`}
                  rowData={(m) => ({ user: m.userId })}
                  columns={[
                    { id: 'user', label: 'User', sort: 'user', render: (m) => <a href={links.user(apiKey, m.userId)}>{m.userId}</a> },
                    { id: 'level', label: 'Level', render: (m) => m.level },
                    {
                      id: 'resource',
                      label: 'On',
                      render: (m) =>
                        m.level === 'document' ? (
                          <a href={links.document(apiKey, organizationId, m.resourceId)}>{m.resourceId}</a>
                        ) : m.level === 'folder' ? (
                          <a href={links.folder(apiKey, organizationId, m.resourceId)}>{m.resourceId}</a>
                        ) : (
                          m.resourceId
                        ),
                    },
                    { id: 'role', label: 'Role', render: (m) => <MemberActions apiKey={apiKey} m={m} onChanged={changed} /> },
                    { id: 'expires', label: 'Expires', render: (m) => (m.expiresAt ? time(m.expiresAt) : 'never') },
                  ]}
                />
              )}
              {tab === 'notifications' && <Notifications scope={{ apiKey, organizationId }} />}
              {tab === 'activity' && <Activity scope={{ apiKey, organizationId }} />}
              {tab === 'live' && (
                <Table<CrdtItem>
                  id="rooms"
                  caption="Collaborative documents of this organization, rooms opened over the websocket included"
                  deps={[apiKey, organizationId]}
                  load={(a) => api.crdtList({ apiKey, organizationId, ...a })}
                  rowKey={(r) => `${r.documentId}/${r.editorId}`}
                  rowData={(r) => ({ room: `${r.documentId}/${r.editorId}` })}
                  columns={[
                    {
                      id: 'doc',
                      label: 'Document / editor',
                      sort: 'document',
                      render: (r) => <a href={links.document(apiKey, organizationId, r.documentId)}>{`${r.documentId} / ${r.editorId}`}</a>,
                    },
                    { id: 'type', label: 'Type', render: (r) => r.type },
                    { id: 'live', label: 'Live view', render: (r) => <a href={links.crdt(apiKey, organizationId, r.documentId, r.editorId)}>open</a> },
                    { id: 'clients', label: 'Clients', class: 'num', render: (r) => r.connections },
                  ]}
                />
              )}
            </div>
          </div>
        </div>
      )}
    </>
  );
}
