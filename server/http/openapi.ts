import { z } from 'zod';
import type { AnyOperation } from './operation.ts';
import { STATUS_TO_HTTP } from './errors.ts';
import { headerNames } from './dispatch.ts';

const errorEnvelope = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['status', 'message'],
      properties: {
        status: { type: 'string', enum: Object.keys(STATUS_TO_HTTP).filter((s) => s !== 'OK') },
        message: { type: 'string' },
        details: {},
      },
    },
  },
};

/** OpenAPI 3.1 for every operation of the registry, from the same zod schemas that validate requests. */
export function buildOpenApi(operations: readonly AnyOperation[], opts: { version: string; brand: string }) {
  const names = headerNames(opts.brand);
  const paths: Record<string, unknown> = {};
  for (const op of operations) {
    const security = op.auth === 'workspace' ? [{ workspaceId: [], workspaceAuthToken: [] }] : op.auth === 'apiKey' ? [{ apiKey: [], authToken: [] }] : [];
    const item = (path: string) => ({
      post: {
        operationId: path.replace(/^\//, '').replace(/[/-]/g, '_'),
        summary: op.summary,
        tags: [op.path.split('/')[2] ?? 'misc'],
        security,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['data'],
                additionalProperties: false,
                properties: { data: z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) },
              },
            },
          },
        },
        responses: {
          '200': {
            description: op.envelope === 'classic' ? '`{ result: { status: "success", message, data? } }`' : '`{ result: <payload> }`',
            content: { 'application/json': { schema: { type: 'object', required: ['result'], properties: { result: {} } } } },
          },
          default: { description: 'Error envelope', content: { 'application/json': { schema: errorEnvelope } } },
        },
      },
    });
    for (const path of [op.path, ...(op.aliases ?? [])]) paths[path] = item(path);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Hearth', version: opts.version, description: 'Every operation is POST with a JSON body `{ "data": { ... } }`.' },
    components: {
      securitySchemes: {
        workspaceId: { type: 'apiKey', in: 'header', name: names.workspaceId },
        workspaceAuthToken: { type: 'apiKey', in: 'header', name: names.workspaceAuthToken },
        apiKey: { type: 'apiKey', in: 'header', name: names.apiKey },
        authToken: { type: 'apiKey', in: 'header', name: names.authToken },
      },
    },
    paths,
  };
}
