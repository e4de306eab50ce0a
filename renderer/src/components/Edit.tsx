// Editing from the entity pages, through the operations themselves (POST /admin/api/call, the API explorer's path):
// each edit is a real call of the interface, so it shows in the request monitor and fires the same webhooks as
// the same call from an app. Forms are generated from the operation's input schema (GET /openapi.json, made from
// the zod schemas that validate the call); the server is the one validator, and its error envelope's message is
// shown under the field it names. Destructive actions ask first, naming what goes with the entity.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../lib/api.ts';
import { type JsonSchema, loadOperations, unwrap } from '../lib/openapi.ts';
import { SchemaFields } from './SchemaForm.tsx';
import { Status, type Said } from './ui.tsx';

/** What an operation call came to: the envelope's error, or the failed item of a per-item answer, or success. */
export interface Outcome {
  ok: boolean;
  message: string;
  /** The field an INVALID_ARGUMENT names (`organizations[0].organizationId` → `organizationId`). */
  field?: string;
  data?: unknown;
}

/** The field an error message starts with (the server's messages always name it first). */
export function fieldOf(message: string): string | undefined {
  const token = /^([\w$]+(?:\[\d+\])*(?:\.[\w$]+(?:\[\d+\])*)*) /.exec(message)?.[1];
  if (!token || token === 'data') return undefined;
  return /([\w$]+)(?:\[\d+\])*$/.exec(token)?.[1];
}

type ItemOutcome = { success?: unknown; message?: unknown };
const isItemMap = (data: unknown): data is Record<string, ItemOutcome> =>
  !!data &&
  typeof data === 'object' &&
  !Array.isArray(data) &&
  Object.values(data).length > 0 &&
  Object.values(data).every((v) => !!v && typeof v === 'object' && typeof (v as ItemOutcome).success === 'boolean');

/**
 * Calls an operation as the signed-in workspace and says how it went. The per-item answers of the bulk operations
 * (`{ id: { success, message } }` in a successful envelope) count as failed when an item failed.
 */
export async function perform(op: string, apiKey: string, data: unknown): Promise<Outcome> {
  try {
    const answer = await api.callAny(op, apiKey, data);
    const error = answer.body.error;
    if (error || answer.status >= 400) {
      const message = error?.message ?? `HTTP ${answer.status}`;
      return { ok: false, message, field: fieldOf(message) };
    }
    const result = answer.body.result;
    const payload = result?.data;
    if (isItemMap(payload)) {
      const failed = Object.entries(payload).find(([, v]) => v.success === false);
      if (failed) return { ok: false, message: `${failed[0]}: ${String(failed[1].message)}`, data: payload };
    }
    return { ok: true, message: typeof result?.message === 'string' ? result.message : 'Done.', data: payload };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

/** The part of an operation's input schema at `at` (each name a property; arrays step into their items). */
function schemaAt(schema: JsonSchema, at: string[]): JsonSchema | undefined {
  let s: JsonSchema | undefined = unwrap(schema).schema;
  for (const name of at) {
    s = s?.properties?.[name];
    if (!s) return undefined;
    s = unwrap(s).schema;
    if (s.items) s = unwrap(s.items).schema;
  }
  return s;
}

/** An operation's input schema (loaded once with the operation list). */
function useOperationSchema(op: string): JsonSchema | undefined {
  const [schema, setSchema] = useState<JsonSchema | undefined>(undefined);
  useEffect(() => {
    let stale = false;
    loadOperations().then(
      (ops) => !stale && setSchema(ops.operations.find((o) => o.path === op)?.schema),
      () => undefined,
    );
    return () => void (stale = true);
  }, [op]);
  return schema;
}

export type Values = Record<string, unknown>;

/**
 * A form of some fields of an operation (those named in `fields`, found in its schema at `at`), sent as the
 * operation's data built by `build`. The browser's own checks are off (noValidate): the server's envelope says
 * what is wrong, under the field it names.
 */
export function OpForm({
  id,
  title,
  apiKey,
  op,
  at = [],
  fields,
  initial = {},
  build,
  submitLabel,
  done,
  onDone,
  extra,
  keep = false,
  undo = false,
}: {
  id: string;
  title?: string;
  apiKey: string;
  op: string;
  at?: string[];
  fields: string[];
  initial?: Values;
  build: (values: Values) => unknown;
  submitLabel: string;
  /** What the status line says after success. */
  done: (values: Values) => string;
  onDone?: (values: Values, outcome: Outcome) => void;
  /** Controls of the form's own (a picker): they read and set the same values. */
  extra?: (values: Values, set: (v: Values) => void) => ComponentChildren;
  /** Keep the values after success (edit forms) rather than clear them (create forms). */
  keep?: boolean;
  /**
   * Offer Undo after success: the same operation sent with the values the form started from (`initial`), for a
   * cheap change whose previous state those values are whole (a rename, an access type, a move).
   */
  undo?: boolean;
}) {
  const schema = useOperationSchema(op);
  const [values, setValues] = useState<Values>(initial);
  const [said, setSaid] = useState<Said | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** What Undo sends (the values the form started from, before the last success), while it is offered. */
  const [undoTo, setUndoTo] = useState<Values | null>(null);
  const initialKey = JSON.stringify(initial);
  // After this form's own change (or its undo) the page reads the entity again, and the values it starts from
  // follow. A pick made before that read arrives (a fast user, or a test) is the user's and is kept.
  const awaiting = useRef({ reload: false, edited: false });
  const change = (v: Values) => {
    if (awaiting.current.reload) awaiting.current.edited = true;
    setValues(v);
  };
  useEffect(() => {
    const own = awaiting.current.reload;
    const kept = own && awaiting.current.edited;
    awaiting.current = { reload: false, edited: false };
    if (!kept) setValues(initial);
    // changed by someone else, or another entity on the same page: what Undo would send is no longer the state before
    if (!own) setUndoTo(null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [initialKey]);
  const part = schema ? schemaAt(schema, at) : undefined;
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setSaid(null);
    setUndoTo(null);
    const before = initial;
    const outcome = await perform(op, apiKey, build(values));
    setBusy(false);
    if (!outcome.ok) {
      if (outcome.field && fields.includes(outcome.field)) {
        setErrors({ [outcome.field]: outcome.message });
        setFormError(null);
      } else {
        setErrors({});
        setFormError(outcome.message);
      }
      return;
    }
    setErrors({});
    setFormError(null);
    setSaid({ text: done(values), tone: 'ok' });
    const changed = JSON.stringify(before) !== JSON.stringify(values);
    if (undo && changed) setUndoTo(before);
    if (keep && changed) awaiting.current = { reload: true, edited: false };
    if (!keep) setValues(initial);
    onDone?.(values, outcome);
  };
  const undoLast = async () => {
    if (!undoTo) return;
    setBusy(true);
    const outcome = await perform(op, apiKey, build(undoTo));
    setBusy(false);
    if (!outcome.ok) {
      setFormError(`Undo failed: ${outcome.message}`);
      return;
    }
    setUndoTo(null);
    awaiting.current = { reload: true, edited: false };
    setValues(undoTo);
    setSaid({ text: `Undone: ${done(undoTo)}`, tone: 'ok' });
    onDone?.(undoTo, outcome);
  };
  return (
    <form class="form edit-form" id={id} noValidate onSubmit={(e) => void submit(e)} aria-label={title}>
      {title && <h3>{title}</h3>}
      {part ? (
        <SchemaFields schema={part} names={fields} value={values} onChange={change} prefix={id} errors={errors} />
      ) : (
        <p class="muted">Loading the operation's fields…</p>
      )}
      {extra?.(values, change)}
      {formError && (
        <p class="error" role="alert" id={`${id}-error`}>
          {formError}
        </p>
      )}
      <div class="row">
        <button type="submit" class="primary" id={`${id}-submit`} disabled={busy || !part}>
          {submitLabel}
        </button>
        <span class="muted op-path">{op}</span>
      </div>
      <div class="row">
        <Status said={said} id={`${id}-status`} />
        {undoTo && (
          <button type="button" class="small" id={`${id}-undo`} disabled={busy} onClick={() => void undoLast()}>
            Undo
          </button>
        )}
      </div>
    </form>
  );
}

/**
 * A button that asks before it acts: a modal dialog names what will go (`details`, loaded when it opens), and the
 * action runs only on its confirm button. A failure is said in the dialog; success closes it.
 */
export function ConfirmButton({
  id,
  label,
  title,
  confirmLabel,
  details,
  action,
  onDone,
  tone = 'danger',
}: {
  id: string;
  label: string;
  title: string;
  confirmLabel: string;
  details?: () => Promise<ComponentChildren> | ComponentChildren;
  action: () => Promise<Outcome>;
  onDone?: (outcome: Outcome) => void;
  tone?: 'danger' | 'plain';
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const [body, setBody] = useState<ComponentChildren>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  const start = async () => {
    setError(null);
    setBody(<p class="muted">Looking up what goes with it…</p>);
    setOpen(true);
    try {
      setBody(details ? await details() : null);
    } catch (e) {
      setBody(<p class="error">{e instanceof Error ? e.message : String(e)}</p>);
    }
  };
  const confirm = async () => {
    setBusy(true);
    const outcome = await action();
    setBusy(false);
    if (!outcome.ok) return setError(outcome.message);
    setOpen(false);
    onDone?.(outcome);
  };
  return (
    <>
      <button type="button" class={tone === 'danger' ? 'danger' : ''} id={id} onClick={() => void start()}>
        {label}
      </button>
      <dialog ref={dialog} class="confirm" id={`${id}-dialog`} aria-labelledby={`${id}-title`} onClose={() => setOpen(false)}>
        <h2 id={`${id}-title`}>{title}</h2>
        <div class="confirm-body">{body}</div>
        {error && (
          <p class="error" role="alert" id={`${id}-error`}>
            {error}
          </p>
        )}
        <div class="row">
          <button type="button" class={tone === 'danger' ? 'danger' : 'primary'} id={`${id}-confirm`} disabled={busy} onClick={() => void confirm()}>
            {confirmLabel}
          </button>
          <button type="button" id={`${id}-cancel`} onClick={() => setOpen(false)}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}

/** A button that calls an operation at once (a cheap, reversible change: disable, enable), with a status line. */
export function OpButton({ id, label, run, done, onDone }: { id: string; label: string; run: () => Promise<Outcome>; done: string; onDone?: () => void }) {
  const [said, setSaid] = useState<Said | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <span class="op-button">
      <button
        type="button"
        id={id}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          const outcome = await run();
          setBusy(false);
          setSaid(outcome.ok ? { text: done, tone: 'ok' } : { text: outcome.message, tone: 'bad' });
          if (outcome.ok) onDone?.();
        }}
      >
        {label}
      </button>
      <Status said={said} id={`${id}-status`} />
    </span>
  );
}
