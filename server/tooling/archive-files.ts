import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';

const FLUSH_AT = 1 << 20;

/** Writes a file line by line through a 1 MiB buffer, hashing what it writes (memory stays bounded). */
export class HashedLineWriter {
  private readonly fd: number;
  private readonly hash = createHash('sha256');
  private chunks: string[] = [];
  private pending = 0;
  bytes = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'wx', 0o600);
  }

  line(text: string) {
    this.chunks.push(text, '\n');
    this.pending += text.length + 1;
    if (this.pending >= FLUSH_AT) this.flush();
  }

  private flush() {
    if (this.chunks.length === 0) return;
    const buffer = Buffer.from(this.chunks.join(''), 'utf8');
    this.chunks = [];
    this.pending = 0;
    this.hash.update(buffer);
    this.bytes += buffer.length;
    let offset = 0;
    while (offset < buffer.length) offset += writeSync(this.fd, buffer, offset);
  }

  close(): { sha256: string; bytes: number } {
    this.flush();
    closeSync(this.fd);
    return { sha256: this.hash.digest('hex'), bytes: this.bytes };
  }
}

/** sha256 (hex) and size of a file, read as a stream. */
export async function hashFile(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}
