import type { UserItem } from '../../../shared/admin.ts';
import { Table } from '../components/Table.tsx';
import { PageHead } from '../components/ui.tsx';
import { api } from '../lib/api.ts';
import { links } from '../lib/links.ts';
import type { Params } from '../lib/router.ts';

export default function Users({ params }: { params: Params }) {
  const apiKey = params.apiKey as string;
  return (
    <>
      <PageHead title="Users" crumbs={[{ label: `Key ${apiKey}`, href: links.key(apiKey) }, { label: 'Users' }]} />
      <Table<UserItem>
        id="users"
        caption="Users of this API key"
        deps={[apiKey]}
        load={(a) => api.users({ apiKey, ...a, sort: a.sort === 'name' ? 'name' : 'id' })}
        rowKey={(u) => u.id}
        rowData={(u) => ({ user: u.id })}
        columns={[
          { id: 'id', label: 'Id', sort: 'id', class: 'id', render: (u) => <a href={links.user(apiKey, u.id)}>{u.id}</a> },
          { id: 'name', label: 'Name', sort: 'name', render: (u) => u.name ?? '' },
          { id: 'email', label: 'E-mail', render: (u) => u.email ?? '' },
        ]}
      />
    </>
  );
}
