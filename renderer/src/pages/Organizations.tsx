import type { OrganizationItem } from '../../../shared/admin.ts';
import { OpForm } from '../components/Edit.tsx';
import { Table } from '../components/Table.tsx';
import { Badge, PageHead, Section, Since } from '../components/ui.tsx';
import { api, entitySort } from '../lib/api.ts';
import { time } from '../lib/format.ts';
import { links } from '../lib/links.ts';
import { navigate, type Params } from '../lib/router.ts';

export default function Organizations({ params }: { params: Params }) {
  const apiKey = params.apiKey as string;
  return (
    <>
      <PageHead title="Organizations" crumbs={[{ label: `Key ${apiKey}`, href: links.key(apiKey) }, { label: 'Organizations' }]} />
      <Table<OrganizationItem>
        id="organizations"
        caption="Organizations of this API key"
        deps={[apiKey]}
        load={(a) => api.organizations({ apiKey, ...a, sort: entitySort(a.sort) })}
        rowKey={(o) => o.id}
        rowData={(o) => ({ organization: o.id })}
        columns={[
          { id: 'id', label: 'Id', sort: 'id', class: 'id', render: (o) => <a href={links.organization(apiKey, o.id)}>{o.id}</a> },
          { id: 'name', label: 'Name', sort: 'name', render: (o) => o.name ?? '' },
          { id: 'state', label: 'State', render: (o) => (o.disabled ? <Badge tone="bad">disabled</Badge> : <Badge tone="ok">enabled</Badge>) },
          { id: 'created', label: 'Created', render: (o) => time(o.createdAt) },
          { id: 'updated', label: 'Updated', sort: 'updated', sortDir: 'desc', render: (o) => <Since at={o.updatedAt} /> },
        ]}
      />
      <Section title="New organization" id="organization-new">
        <OpForm
          id="org-create"
          apiKey={apiKey}
          op="/v2/organizations/add"
          at={['organizations']}
          fields={['organizationId', 'organizationName']}
          build={(v) => ({ organizations: [v] })}
          submitLabel="Create organization"
          done={(v) => `Created organization ${String(v.organizationId)}.`}
          onDone={(v) => navigate(links.organization(apiKey, String(v.organizationId)))}
        />
      </Section>
    </>
  );
}
