// The admin import's body limit (256 MiB) is answered with the error envelope, not a reset: the import reads its
// bytes from the node stream, which a refusal pauses, and a declared length over the limit is refused before a byte
// is read (the web stream's cancel destroyed the socket, and the client lost the answer).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCookie } from '../helpers/admin.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let cookie: string;
beforeAll(async () => {
  t = await startTestServer();
  cookie = await adminCookie(t);
});
afterAll(() => t.close());

describe('the admin import’s body limit', () => {
  it('answers a declared length over 256 MiB with 400 and the envelope, before the body', async () => {
    const { hostname, port } = new URL(t.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          'POST /admin/api/data/import HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\nx-hearth-ui: 1\r\n' +
            `cookie: ${cookie}\r\ncontent-length: ${300 * 1024 * 1024}\r\n\r\n{"apiKey":`,
        );
      });
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        // the whole answer is in once its JSON body closes
        if (/\r\n\r\n\{.*\}$/s.test(text)) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain(`the body exceeds the limit of ${256 * 1024 * 1024} bytes`);
  });
});
