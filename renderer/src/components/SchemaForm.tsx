// A form generated from an operation's JSON schema: required fields marked, enums as choices, nested objects as
// fieldsets, arrays of objects as JSON. It edits a JSON value (the explorer keeps the JSON text beside it).
import { useEffect, useState } from 'preact/hooks';
import type { SearchKind } from '../../../shared/admin.ts';
import { api } from '../lib/api.ts';
import type { JsonSchema } from '../lib/openapi.ts';
import { typeOf, unwrap } from '../lib/openapi.ts';
import { useDebounced } from '../lib/use.ts';

type Value = Record<string, unknown>;

function Field({
  name,
  schema,
  required,
  value,
  onChange,
  path,
  error,
  when,
  pick,
}: {
  name: string;
  schema: JsonSchema;
  required: boolean;
  value: unknown;
  onChange: (v: unknown) => void;
  path: string;
  /** The server's message about this field (its error envelope named it): shown under it, the field marked invalid. */
  error?: string;
  /** When it is required only in some cases: the rule ("is required when documentId is not given"). */
  when?: string | undefined;
  /** The kind of entity whose ids it takes: suggestions from the workspace's search. */
  pick?: SearchKind | undefined;
}) {
  const { schema: s } = unwrap(schema);
  const type = typeOf(s);
  const id = `field-${path.replace(/[^\w-]/g, '_')}`;
  const invalid = error ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-error` } : {};
  const said = error ? (
    <span class="field-error" id={`${id}-error`}>
      {error}
    </span>
  ) : null;
  const label = (
    <span>
      {name}
      {required && (
        <span class="required" aria-label="required">
          {' '}
          *
        </span>
      )}
      {s.description && <span class="field-hint"> — {s.description}</span>}
      {when && (
        <span class="conditional" id={`${id}-when`}>
          {' '}
          ({when.replace(/^is /, '')})
        </span>
      )}
    </span>
  );
  if (s.enum) {
    return (
      <label for={id}>
        {label}
        <select
          id={id}
          name={path}
          required={required}
          {...invalid}
          value={value === undefined ? '' : String(value)}
          onChange={(e) => {
            const text = (e.target as HTMLSelectElement).value;
            onChange(text === '' ? undefined : (s.enum as unknown[]).find((x) => String(x) === text));
          }}
        >
          {!required && <option value="">(not set)</option>}
          {s.enum.map((x) => (
            <option key={String(x)} value={String(x)}>
              {String(x)}
            </option>
          ))}
        </select>
        {said}
      </label>
    );
  }
  if (type === 'boolean') {
    return (
      <label for={id}>
        {label}
        <select
          id={id}
          name={path}
          value={value === undefined ? '' : String(value)}
          onChange={(e) => {
            const text = (e.target as HTMLSelectElement).value;
            onChange(text === '' ? undefined : text === 'true');
          }}
        >
          <option value="">(not set)</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      </label>
    );
  }
  if (type === 'integer' || type === 'number') {
    return (
      <label for={id}>
        {label}
        <input
          id={id}
          name={path}
          type="number"
          required={required}
          {...invalid}
          value={typeof value === 'number' ? String(value) : ''}
          step={type === 'integer' ? 1 : 'any'}
          min={s.minimum}
          max={s.maximum}
          onInput={(e) => {
            const text = (e.target as HTMLInputElement).value;
            onChange(text === '' ? undefined : Number(text));
          }}
        />
        {said}
      </label>
    );
  }
  if (type === 'string') {
    return (
      <label for={id}>
        {label}
        <input
          id={id}
          name={path}
          required={required}
          {...invalid}
          value={typeof value === 'string' ? value : ''}
          type={s.format === 'email' ? 'email' : 'text'}
          list={pick ? `${id}-options` : undefined}
          autocomplete={pick ? 'off' : undefined}
          onInput={(e) => {
            const text = (e.target as HTMLInputElement).value;
            onChange(text === '' && !required ? undefined : text);
          }}
        />
        {said}
        {pick && <IdOptions id={`${id}-options`} kind={pick} value={typeof value === 'string' ? value : ''} />}
      </label>
    );
  }
  if (type === 'array' && s.items && ['string', 'number', 'integer'].includes(typeOf(unwrap(s.items).schema)) && !unwrap(s.items).schema.enum) {
    const numeric = typeOf(unwrap(s.items).schema) !== 'string';
    return (
      <label for={id}>
        {label}
        <input
          id={id}
          name={path}
          placeholder="comma-separated"
          value={Array.isArray(value) ? value.join(', ') : ''}
          onInput={(e) => {
            const text = (e.target as HTMLInputElement).value;
            const items = text
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean);
            onChange(items.length ? items.map((x) => (numeric ? Number(x) : x)) : undefined);
          }}
        />
      </label>
    );
  }
  if (type === 'object' && s.properties) {
    return (
      <fieldset>
        <legend>{label}</legend>
        <ObjectFields
          schema={s}
          value={(value as Value | undefined) ?? {}}
          onChange={(v) => onChange(Object.keys(v).length ? v : required ? {} : undefined)}
          path={path}
        />
      </fieldset>
    );
  }
  return (
    <label for={id}>
      {label}
      <textarea
        id={id}
        name={path}
        rows={3}
        spellcheck={false}
        value={value === undefined ? '' : JSON.stringify(value)}
        onChange={(e) => {
          const text = (e.target as HTMLTextAreaElement).value.trim();
          try {
            onChange(text === '' ? undefined : (JSON.parse(text) as unknown));
          } catch {
            // left as typed until it is JSON
          }
        }}
      />
    </label>
  );
}

/** Field names that take an entity's id, and the kind the search suggests for them (the explorer's id pickers). */
const ID_KINDS: Record<string, SearchKind> = {
  organizationId: 'organization',
  documentId: 'document',
  folderId: 'folder',
  userId: 'user',
  groupId: 'group',
  endpointId: 'webhook',
  messageId: 'message',
};

/** A field's suggestions: ids of its kind matching what is typed, from the workspace's search (the browser's list). */
function IdOptions({ id, kind, value }: { id: string; kind: SearchKind; value: string }) {
  const [options, setOptions] = useState<Array<{ id: string; label: string }>>([]);
  const q = useDebounced(value.trim(), 200);
  useEffect(() => {
    let stale = false;
    api.search(q || (kind === 'message' ? 'msg_' : 'a')).then(
      (answer) => !stale && setOptions(answer.items.filter((h) => h.kind === kind).map((h) => ({ id: h.id, label: h.label }))),
      () => undefined,
    );
    return () => void (stale = true);
  }, [q, kind]);
  return (
    <datalist id={id}>
      {options.map((o) => (
        <option key={o.id} value={o.id}>
          {o.label}
        </option>
      ))}
    </datalist>
  );
}

function ObjectFields({
  schema,
  value,
  onChange,
  path,
  conditional = {},
  pickIds = false,
}: {
  schema: JsonSchema;
  value: Value;
  onChange: (v: Value) => void;
  path: string;
  conditional?: Record<string, string>;
  pickIds?: boolean;
}) {
  const required = new Set(schema.required ?? []);
  const names = Object.keys(schema.properties ?? {}).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  return (
    <>
      {names.map((name) => (
        <Field
          key={name}
          name={name}
          path={path ? `${path}.${name}` : name}
          schema={(schema.properties ?? {})[name] as JsonSchema}
          required={required.has(name)}
          when={required.has(name) ? undefined : conditional[name]}
          pick={pickIds ? ID_KINDS[name] : undefined}
          value={value[name]}
          onChange={(v) => {
            const next = { ...value };
            if (v === undefined) delete next[name];
            else next[name] = v;
            onChange(next);
          }}
        />
      ))}
    </>
  );
}

/**
 * Some fields of an operation's schema (an entity's form on its page): the named properties of `schema`, in that
 * order, with ids `field-<prefix>_<name>`, and the server's message under the field it names.
 */
export function SchemaFields({
  schema,
  names,
  value,
  onChange,
  prefix,
  errors = {},
}: {
  schema: JsonSchema;
  names: string[];
  value: Value;
  onChange: (v: Value) => void;
  prefix: string;
  errors?: Record<string, string>;
}) {
  const { schema: s } = unwrap(schema);
  const required = new Set(s.required ?? []);
  return (
    <>
      {names
        .filter((name) => s.properties?.[name])
        .map((name) => (
          <Field
            key={name}
            name={name}
            path={`${prefix}.${name}`}
            schema={s.properties?.[name] as JsonSchema}
            required={required.has(name)}
            value={value[name]}
            error={errors[name]}
            onChange={(v) => {
              const next = { ...value };
              if (v === undefined) delete next[name];
              else next[name] = v;
              onChange(next);
            }}
          />
        ))}
    </>
  );
}

export function SchemaForm({
  schema,
  value,
  onChange,
  conditional,
  pickIds,
}: {
  schema: JsonSchema;
  value: Value;
  onChange: (v: Value) => void;
  /** Top-level fields required only in some cases, with the rule (marked beside the field). */
  conditional?: Record<string, string>;
  /** Suggest ids where a top-level field takes one (organizationId, documentId, userId…). */
  pickIds?: boolean;
}) {
  const { schema: s } = unwrap(schema);
  if (!s.properties || Object.keys(s.properties).length === 0) return <p class="muted">This operation takes no fields: send {'{}'}.</p>;
  return (
    <div class="form" id="schema-form">
      <ObjectFields schema={s} value={value} onChange={onChange} path="" conditional={conditional ?? {}} pickIds={pickIds ?? false} />
    </div>
  );
}
