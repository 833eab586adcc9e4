import { gzipSync } from 'node:zlib';

/** One entry of a test archive; `type` is the ustar typeflag ('0' file, '5' folder, '2' symlink, 'x' pax). */
export interface TestEntry {
  name: string;
  data?: string | Buffer;
  type?: string;
  linkname?: string;
}

/** A ustar archive, gzip'd, written by hand so tests can make the hostile ones no tar tool would. */
export function makeTarGz(entries: TestEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data ?? '');
    const header = Buffer.alloc(512);
    header.write(entry.name.slice(0, 100), 0, 'utf8');
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write('00000000000\0', 136);
    header.write(entry.type ?? '0', 156);
    if (entry.linkname !== undefined) header.write(entry.linkname, 157);
    header.write('ustar\0', 257);
    header.write('00', 263);
    header.fill(0x20, 148, 156);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/** A pax extended header entry setting `path`. */
export function paxPath(path: string): TestEntry {
  const body = (len: number) => `${len} path=${path}\n`;
  let len = body(0).length;
  while (body(len).length !== len) len = body(len).length;
  return { name: 'PaxHeader', type: 'x', data: body(len) };
}
