import { randomBytes } from 'node:crypto';

const HEX = '0123456789abcdef';

/**
 * A source of request ids: UUID-shaped (RFC 9562 version 8, whose layout is the vendor's): 74 random bits drawn
 * once per source (one per process), then a 48-bit counter. Unique within a process and, with overwhelming odds,
 * across processes; in order within one server's log. Ids only name a call in logs and answers, so they need no
 * randomness of their own: crypto.randomUUID cost about 1 µs of server CPU a call in place (an A/B of ping, 20
 * alternated rounds), its string being built from 18 parts that node's header check then flattens; this one is a
 * flat string copied out of one buffer.
 */
export function requestIds(): () => string {
  const random = randomBytes(10).toString('hex');
  const variant = HEX[8 | (parseInt(random[16] as string, 16) & 3)] as string;
  const text = Buffer.from(`${random.slice(0, 8)}-${random.slice(8, 12)}-8${random.slice(13, 16)}-${variant}${random.slice(17, 20)}-000000000000`, 'latin1');
  let next = 0;
  return () => {
    let n = next++;
    for (let i = 35; i >= 24; i--) {
      text[i] = HEX.charCodeAt(n % 16);
      n = Math.floor(n / 16);
    }
    return text.toString('latin1', 0, 36);
  };
}

/** This process's request ids. */
export const nextRequestId = requestIds();
