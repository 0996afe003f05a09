import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { colourName, firstPixel, pngDataUri, solidPng } from '../../src/media/png.js';

describe('png', () => {
  it('writes a valid PNG that reads back to its colour', () => {
    const png = solidPng(8, [30, 170, 60]);
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(firstPixel(png)).toEqual([30, 170, 60]);
    expect(colourName(firstPixel(png)!)).toBe('green');
    expect(pngDataUri(png)).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
  });

  it('carries 8 rows of 8 RGB pixels, each row with filter byte 0', () => {
    const png = solidPng(8, [1, 2, 3]);
    const idatAt = png.indexOf('IDAT');
    const length = png.readUInt32BE(idatAt - 4);
    const raw = inflateSync(png.subarray(idatAt + 4, idatAt + 4 + length));
    expect(raw.length).toBe(8 * (1 + 8 * 3));
  });

  it('names near colours and refuses what is not a PNG', () => {
    expect(colourName([250, 10, 0])).toBe('red');
    expect(colourName([10, 20, 240])).toBe('blue');
    expect(firstPixel(Buffer.from('not a png at all, not at all, not at all'))).toBeUndefined();
  });
});
