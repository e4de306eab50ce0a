// The mailbox: every e-mail Hearth wrote for this workspace (login links, notification mail), by time (newest first,
// keyset-paged, either direction), with the relay's state (SMTP or the local outbox only) and each mail's text and
// HTML (in a sandboxed frame).
import { useState } from 'preact/hooks';
import type { MailAnswer, MailItem } from '../../../shared/admin.ts';
import { Table } from '../components/Table.tsx';
import { Badge, ErrorBox, PageHead, Section } from '../components/ui.tsx';
import { api } from '../lib/api.ts';
import { time } from '../lib/format.ts';
import { links } from '../lib/links.ts';
import type { Params } from '../lib/router.ts';
import { useLoad } from '../lib/use.ts';

const stateOf = (m: MailItem) =>
  m.status === 'sent' ? <Badge tone="ok">sent</Badge> : m.lastError ? <Badge tone="bad">{`${m.status}: ${m.lastError}`}</Badge> : <Badge>{m.status}</Badge>;

export default function Mailbox({ params }: { params: Params }) {
  const [relay, setRelay] = useState<MailAnswer['relay'] | null>(null);
  const [refreshed, setRefreshed] = useState(0);
  const openId = params.id ?? null;
  return (
    <>
      <PageHead title="Mailbox">
        <button type="button" id="mail-refresh" onClick={() => setRefreshed((n) => n + 1)}>
          Refresh
        </button>
      </PageHead>
      <p id="relay" class="muted">
        {relay
          ? relay.smtp
            ? `Relayed over SMTP (SMTP_URL is set), from ${relay.from}; every mail is kept here too.`
            : `No SMTP relay (SMTP_URL is not set): mail stays in this local outbox, from ${relay.from}.`
          : ''}
      </p>
      <div class="split">
        <Table<MailItem>
          id="mail-list"
          caption="Mail"
          search={false}
          deps={[refreshed]}
          defaultDir="desc"
          load={async (a) => {
            const answer = await api.mail({ cursor: a.cursor, dir: a.dir, limit: a.limit });
            setRelay(answer.relay);
            return answer;
          }}
          rowKey={(m) => m.id}
          rowData={(m) => ({ mail: m.id })}
          selected={openId}
          empty="No mail yet."
          columns={[
            { id: 'time', label: 'Time', sort: 'time', render: (m) => time(m.createdAt) },
            { id: 'to', label: 'To', render: (m) => m.to },
            { id: 'subject', label: 'Subject', render: (m) => <a href={links.mail(m.id) + location.search}>{m.subject}</a> },
            { id: 'kind', label: 'Kind', render: (m) => m.kind },
            { id: 'state', label: 'State', render: stateOf },
          ]}
        />
        <div class="sticky">{openId && <MailView id={openId} />}</div>
      </div>
    </>
  );
}

function MailView({ id }: { id: string }) {
  const mail = useLoad(() => api.mailOne(id), [id]);
  if (mail.error) return <ErrorBox error={mail.error} />;
  const m = mail.data;
  if (!m) return <p class="muted">Loading…</p>;
  return (
    <Section title={m.subject} id="mail-view">
      <p class="muted">
        To {m.to} · {time(m.createdAt)} · {m.kind}
      </p>
      <h3>Text</h3>
      <pre tabIndex={0} id="mail-text">
        {m.text}
      </pre>
      <h3>HTML</h3>
      <iframe class="mail-html" id="mail-html" sandbox="" title="HTML version of the mail" srcdoc={m.html} />
    </Section>
  );
}
