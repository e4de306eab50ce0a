/**
 * Small, valid media files for the demo recordings, made in code: a WAV tone (audio recordings) and a PNG frame
 * (screen recordings). Both open in a browser, and both pass the recordings service's magic-number checks.
 */
import { deflateSync } from 'node:zlib';

/** A mono 8 kHz 16-bit PCM WAV of a sine tone with a short fade in and out. */
export function wavTone(frequencyHz: number, durationMs: number): Buffer {
  const rate = 8000;
  const samples = Math.round((rate * durationMs) / 1000);
  const data = Buffer.alloc(samples * 2);
  const fade = Math.min(400, samples / 4);
  for (let i = 0; i < samples; i++) {
    const envelope = Math.min(1, i / fade, (samples - 1 - i) / fade);
    data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * frequencyHz * i) / rate) * 8000 * envelope), i * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/**
 * A `width`×`height` RGB PNG that looks like a screen: a title bar in `accent`, a light page and a few grey
 * text lines.
 */
export function screenPng(width: number, height: number, accent: readonly [number, number, number]): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3); // filter byte 0 (none), then RGB
    for (let x = 0; x < width; x++) {
      let rgb: readonly [number, number, number] = [248, 248, 250];
      if (y < height / 8) rgb = accent;
      else if (y % 12 < 4 && x > width / 12 && x < width * (0.5 + ((y * 7) % 40) / 100)) rgb = [190, 192, 198];
      row.set(rgb, 1 + x * 3);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
