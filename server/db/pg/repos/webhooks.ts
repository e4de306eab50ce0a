// The endpoint rule of webhooks in PostgreSQL's JSON functions: the twin of ENDPOINT_TAKES_EVENT
// (../../repos/webhook-delivery.ts), used by the outbox's "would anyone receive it" check (../../repos/webhooks.ts,
// written once for both engines) and by the delivery store's fan-out on PostgreSQL (webhook-delivery.ts). The
// webhooks repository's PostgreSQL port that held it is gone (issue 43); the rule stays here, a module of plain SQL
// text without imports, until the delivery store is written once and the rule can sit beside its SQLite twin.

/**
 * Whether a JSON array column (`filter_types`, `channels`) names the value `cond` matches: SQLite's
 * `EXISTS(SELECT 1 FROM json_each(col) WHERE value …)`. json_each walks an array's elements, an object's values, or
 * a scalar itself, and a JSON string's value is its text: the same here (only strings can match a text parameter,
 * as in SQLite, where a number's value is an integer, which never equals text).
 */
const names = (column: string, cond: string) =>
  `(${column} IS NULL OR json_typeof(${column}) = 'null' OR EXISTS(SELECT 1 FROM json_array_elements(CASE json_typeof(${column})` +
  ` WHEN 'array' THEN ${column} WHEN 'object' THEN (SELECT coalesce(json_agg(o.value), '[]'::json) FROM json_each(${column}) o) ELSE json_build_array(${column}) END) v` +
  ` WHERE json_typeof(v) = 'string' AND (v #>> '{}') ${cond}))`;

/**
 * webhook-delivery.ts's ENDPOINT_TAKES_EVENT for endpoint `e`, with the parameters that hold the event's type, its
 * organization and its document: the one rule for the outbox's check (../../repos/webhooks.ts) and the delivery
 * store's fan-out (webhook-delivery.ts).
 */
export const endpointTakesEvent = (type: string, organization: string, document: string) =>
  `${names('e.filter_types', `= ${type}`)} AND ${names('e.channels', `IN (${organization}, ${document})`)}`;
