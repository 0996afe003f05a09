import { deflateSync, inflateSync } from 'node:zlib';

/**
 * The smallest PNG writer and reader the image probe needs: a solid-colour RGB square, made by the probe
 * itself (no image library) and read back by the reference server to name its colour.
 */

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export type Rgb = readonly [number, number, number];

export function solidPng(size: number, [r, g, b]: Rgb): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const row = Buffer.alloc(1 + size * 3); // filter byte 0, then pixels
  for (let x = 0; x < size; x++) row.set([r, g, b], 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: size }, () => row));
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

export function pngDataUri(png: Buffer): string {
  return `data:image/png;base64,${png.toString('base64')}`;
}

/** The first pixel of an 8-bit RGB or RGBA PNG whose first row is unfiltered, or undefined. */
export function firstPixel(png: Buffer): Rgb | undefined {
  if (png.length < 33 || !png.subarray(0, 8).equals(SIGNATURE)) return undefined;
  let at = 8;
  let colourType = -1;
  const idat: Buffer[] = [];
  while (at + 8 <= png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('ascii', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') colourType = data[9] ?? -1;
    if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  if ((colourType !== 2 && colourType !== 6) || idat.length === 0) return undefined;
  try {
    const raw = inflateSync(Buffer.concat(idat));
    if (raw[0] !== 0) return undefined;
    return [raw[1]!, raw[2]!, raw[3]!];
  } catch {
    return undefined;
  }
}

const NAMED: [string, Rgb][] = [
  ['red', [220, 30, 30]],
  ['green', [30, 170, 60]],
  ['blue', [30, 60, 220]],
  ['yellow', [240, 220, 40]],
  ['black', [0, 0, 0]],
  ['white', [255, 255, 255]],
];

/** The nearest of a few plain colour names. */
export function colourName([r, g, b]: Rgb): string {
  let best = NAMED[0]!;
  let dist = Infinity;
  for (const entry of NAMED) {
    const [er, eg, eb] = entry[1];
    const d = (r - er) ** 2 + (g - eg) ** 2 + (b - eb) ** 2;
    if (d < dist) {
      dist = d;
      best = entry;
    }
  }
  return best[0];
}
