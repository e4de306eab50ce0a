// The operation list and each operation's input schema, from GET /openapi.json (generated from the same zod
// schemas that validate requests).
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  default?: unknown;
  examples?: unknown[];
  description?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  additionalProperties?: boolean | JsonSchema;
}

export interface OperationInfo {
  path: string;
  summary: string;
  auth: 'workspace' | 'apiKey' | 'public';
  schema: JsonSchema;
}

interface OpenApi {
  paths: Record<
    string,
    {
      post: {
        summary: string;
        security: Array<Record<string, unknown>>;
        requestBody: { content: { 'application/json': { schema: { properties: { data: JsonSchema } } } } };
      };
    }
  >;
  components: { securitySchemes: Record<string, { name: string }> };
}

let cached: Promise<{ operations: OperationInfo[]; brand: string }> | null = null;

export function loadOperations() {
  cached ??= fetch('/openapi.json')
    .then((res) => res.json() as Promise<OpenApi>)
    .then((doc) => {
      const operations = Object.entries(doc.paths)
        .map(([path, item]): OperationInfo => {
          const first = item.post.security[0];
          return {
            path,
            summary: item.post.summary,
            auth: !first ? 'public' : 'workspaceId' in first ? 'workspace' : 'apiKey',
            schema: item.post.requestBody.content['application/json'].schema.properties.data,
          };
        })
        .sort((a, b) => a.path.localeCompare(b.path));
      const brand = /^x-(.+)-api-key$/.exec(doc.components.securitySchemes.apiKey?.name ?? '')?.[1] ?? 'svc';
      return { operations, brand };
    });
  return cached;
}

/** The schema without its `null` alternative (zod's nullable/optional), and whether null was one. */
export function unwrap(schema: JsonSchema): { schema: JsonSchema; nullable: boolean } {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const rest = alternatives.filter((s) => s.type !== 'null');
    if (rest.length === 1) return { schema: rest[0] as JsonSchema, nullable: rest.length < alternatives.length };
  }
  return { schema, nullable: false };
}

export const typeOf = (schema: JsonSchema): string => {
  const t = Array.isArray(schema.type) ? schema.type.find((x) => x !== 'null') : schema.type;
  if (t) return t;
  if (schema.enum) return typeof schema.enum[0];
  if (schema.properties) return 'object';
  return 'any';
};

/** An example value: the schema's example or default, else a placeholder of the right kind for required fields. */
export function exampleOf(schema: JsonSchema, depth = 0): unknown {
  const { schema: s } = unwrap(schema);
  if (s.examples?.length) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  switch (typeOf(s)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      if (depth > 4) return out;
      for (const name of s.required ?? []) out[name] = exampleOf(s.properties?.[name] ?? {}, depth + 1);
      return out;
    }
    case 'array':
      return depth > 4 || !s.items ? [] : [exampleOf(s.items, depth + 1)];
    case 'string':
      return s.format === 'email' ? 'ann@example.com' : '';
    case 'integer':
    case 'number':
      return s.minimum ?? 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}
