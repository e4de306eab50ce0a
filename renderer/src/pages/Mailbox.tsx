// The mailbox: every e-mail Hearth wrote for this workspace (login links, notification mail), with the relay's
// state (SMTP or the local outbox only) and each mail's text and HTML (in a sandboxed frame).
import type { MailItem } from '../../../shared/admin.ts';
import { Badge, ErrorBox, PageHead, Section } from '../components/ui.tsx';
import { api } from '../lib/api.ts';
import { time } from '../lib/format.ts';
import { links } from '../lib/links.ts';
import type { Params } from '../lib/router.ts';
import { useLoad } from '../lib/use.ts';

const stateOf = (m: MailItem) => (m.status === 'sent' ? <Badge tone="ok">sent</Badge> : m.lastError ? <Badge tone="bad">{`${m.status}: ${m.lastError}`}</Badge> : <Badge>{m.status}</Badge>);

export default function Mailbox({ params }: { params: Params }) {
  const mail = useLoad(() => api.mail(), []);
  const openId = params.id ?? null;
  const relay = mail.data?.relay;
  return (
    <>
      <PageHead title="Mailbox">
        <button type="button" id="mail-refresh" onClick={mail.reload}>
          Refresh
        </button>
      </PageHead>
      <p id="relay" class="muted">
        {relay ? (relay.smtp ? `Relayed over SMTP (SMTP_URL is set), from ${relay.from}; every mail is kept here too.` : `No SMTP relay (SMTP_URL is not set): mail stays in this local outbox, from ${relay.from}.`) : ''}
      </p>
      <ErrorBox error={mail.error} />
      <div class="split">
        <table id="mail-list">
          <caption class="visually-hidden">Mail, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">To</th>
              <th scope="col">Subject</th>
              <th scope="col">Kind</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {(mail.data?.items ?? []).map((m) => (
              <tr key={m.id} data-mail={m.id} class={openId === m.id ? 'selected' : ''}>
                <td>{time(m.createdAt)}</td>
                <td>{m.to}</td>
                <td>
                  <a href={links.mail(m.id)}>{m.subject}</a>
                </td>
                <td>{m.kind}</td>
                <td>{stateOf(m)}</td>
              </tr>
            ))}
            {mail.data?.items.length === 0 && (
              <tr>
                <td colSpan={5} class="muted">
                  No mail yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
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
      <pre tabIndex={0} id="mail-text">{m.text}</pre>
      <h3>HTML</h3>
      <iframe class="mail-html" id="mail-html" sandbox="" title="HTML version of the mail" srcdoc={m.html} />
    </Section>
  );
}
