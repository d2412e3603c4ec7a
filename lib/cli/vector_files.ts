// The rows of the vector files ANN benchmarks ship, all little-endian: .fvecs (each row an int32
// dimension, then that many float32), .bvecs (the same with uint8 values) and NumPy's .npy (a
// header, then a C-order float32 matrix). Rows count from 0, as the import's default ids do, and
// carry their byte offset, so an error names where the file is wrong and an import can resume at
// a row. The file is streamed, never read whole.
import { createReadStream, openSync, readSync, closeSync, statSync } from 'node:fs';
import * as path from 'node:path';

export type VectorFormat = 'fvecs' | 'bvecs' | 'npy';

/** The format `file` is read as, by its extension in any case; null for anything else (JSON lines). */
export function vectorFormat(file: string): VectorFormat | null {
  const extension = path.extname(file).toLowerCase();
  return extension === '.fvecs' ? 'fvecs' : extension === '.bvecs' ? 'bvecs' : extension === '.npy' ? 'npy' : null;
}

/** A fault of the imported file itself, found before the store saw it: every row before it is good. */
export class MalformedFile extends Error {}

/** How an error names a row. */
export const rowPlace = (file: string, row: number, offset: number) => `${file}: row ${row} at byte ${offset}`;

export interface VectorRow {
  number: number;
  offset: number;
  /** The row's bytes in the file, its dimension header included. */
  raw: Buffer;
  /** Its values, all finite; overwritten by the next row. */
  values: Float32Array;
}

const MAX_DIMENSION = 65536;
const FLOAT32_BYTES = Float32Array.BYTES_PER_ELEMENT;
const CHUNK_BYTES = 4 << 20;
/** A .fvecs or .bvecs row's dimension, before its values. */
const ROW_HEADER_BYTES = 4;

const NPY_MAGIC = Buffer.from('\x93NUMPY', 'latin1');
/** Magic, version, and the header length's field, which is 2 bytes in version 1 and 4 after. */
const npyPrefixBytes = (major: number) => NPY_MAGIC.length + 2 + (major === 1 ? 2 : 4);
const NPY_DTYPE = "'<f4'";

/** What a vector file holds, read from its start; `rows` streams them. */
export class VectorFile {
  private readonly values: Float32Array;
  private readonly valueBytes: Uint8Array;

  private constructor(
    private readonly file: string,
    private readonly format: VectorFormat,
    /** The bytes before row 0: an .npy file's header, none in the others. */
    readonly header: Buffer,
    /** Undefined for an empty .fvecs or .bvecs file. */
    readonly dimension: number | undefined,
    /** The rows an .npy header declares; the others end where the file does. */
    private readonly declaredRows?: number,
  ) {
    this.values = new Float32Array(dimension ?? 0);
    this.valueBytes = new Uint8Array(this.values.buffer);
  }

  static open(file: string, format: VectorFormat): VectorFile {
    const size = statSync(file).size;
    const fd = openSync(file, 'r');
    try {
      const read = (offset: number, length: number) => {
        const bytes = Buffer.alloc(Math.max(0, Math.min(length, size - offset)));
        readSync(fd, bytes, 0, bytes.length, offset);
        return bytes;
      };
      return format === 'npy' ? VectorFile.openNpy(file, size, read) : VectorFile.openVecs(file, format, size, read(0, ROW_HEADER_BYTES));
    } finally {
      closeSync(fd);
    }
  }

  private static openVecs(file: string, format: VectorFormat, size: number, first: Buffer): VectorFile {
    if (size === 0) return new VectorFile(file, format, Buffer.alloc(0), undefined);
    if (size < ROW_HEADER_BYTES) throw new MalformedFile(`${file} ends inside row 0 at byte 0: its dimension needs ${ROW_HEADER_BYTES - size} bytes more`);
    const dimension = first.readInt32LE(0);
    if (!(dimension >= 1 && dimension <= MAX_DIMENSION))
      throw new MalformedFile(`${rowPlace(file, 0, 0)}: dimension ${dimension}; a row's dimension must be 1 to ${MAX_DIMENSION} (is this a .${format} file?)`);
    return new VectorFile(file, format, Buffer.alloc(0), dimension);
  }

  private static openNpy(file: string, size: number, read: (offset: number, length: number) => Buffer): VectorFile {
    const bad = (problem: string) => new MalformedFile(`${file}: ${problem}`);
    const start = read(0, npyPrefixBytes(2));
    if (start.length < npyPrefixBytes(1) || !start.subarray(0, NPY_MAGIC.length).equals(NPY_MAGIC))
      throw bad('not a NumPy .npy file: it does not start with the magic bytes \\x93NUMPY');
    const [major, minor] = [start[6], start[7]];
    if (!(major >= 1 && major <= 3 && minor === 0)) throw bad(`NumPy format version ${major}.${minor}; versions 1.0, 2.0 and 3.0 are read`);
    const prefix = npyPrefixBytes(major);
    if (start.length < prefix) throw bad(`the file ends inside its header, at byte ${size}`);
    const headerLength = major === 1 ? start.readUInt16LE(8) : start.readUInt32LE(8);
    const header = read(0, prefix + headerLength);
    if (header.length < prefix + headerLength) throw bad(`the file ends inside its ${prefix + headerLength}-byte header, at byte ${size}`);
    const text = header
      .subarray(prefix)
      .toString(major === 3 ? 'utf8' : 'latin1')
      .trim();
    const field = (name: string, value: RegExp) => new RegExp(`['"]${name}['"]\\s*:\\s*(${value.source})`).exec(text)?.[1];
    const dtype = field('descr', /'[^']*'|"[^"]*"|\[.*\]/);
    const fortranOrder = field('fortran_order', /True|False/);
    const shapeText = field('shape', /\([^)]*\)/);
    if (dtype === undefined || fortranOrder === undefined || shapeText === undefined)
      throw bad(`header ${text} is not a NumPy array header: it needs 'descr', 'fortran_order' and 'shape'`);
    if (dtype.replaceAll('"', "'") !== NPY_DTYPE) throw bad(`dtype ${dtype}; only ${NPY_DTYPE} (little-endian float32) is read: save array.astype('<f4')`);
    if (fortranOrder !== 'False')
      throw bad(`fortran_order ${fortranOrder} (column-major); only C order (fortran_order False) is read: save np.ascontiguousarray(array)`);
    const shape = shapeText
      .slice(1, -1)
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '');
    if (shape.length !== 2 || !shape.every((n) => /^\d+$/.test(n)))
      throw bad(`shape ${shapeText}; only a 2-D shape (rows, dimension) of whole numbers is read`);
    const [rows, dimension] = shape.map(Number);
    if (!(dimension >= 1 && dimension <= MAX_DIMENSION)) throw bad(`shape ${shapeText}: dimension ${dimension}; it must be 1 to ${MAX_DIMENSION}`);
    const end = header.length + rows * dimension * FLOAT32_BYTES;
    if (size > end) throw bad(`${size - end} bytes after its last row, which ends at byte ${end} (shape ${shapeText})`);
    return new VectorFile(file, 'npy', header, dimension, rows);
  }

  private get rowBytes(): number {
    const dimension = this.dimension ?? 0;
    return this.format === 'npy' ? dimension * FLOAT32_BYTES : ROW_HEADER_BYTES + dimension * (this.format === 'fvecs' ? FLOAT32_BYTES : 1);
  }

  /** The rows from byte `offset`, which is where row `row` starts. */
  async *rows(offset: number, row: number): AsyncGenerator<VectorRow> {
    const rowBytes = this.rowBytes;
    let rest: Buffer = Buffer.alloc(0);
    let restOffset = offset;
    for await (const chunk of createReadStream(this.file, { start: offset, highWaterMark: CHUNK_BYTES })) {
      const bytes = rest.length > 0 ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer);
      let i = 0;
      for (; i + rowBytes <= bytes.length; i += rowBytes) yield this.decode(bytes.subarray(i, i + rowBytes), row++, restOffset + i);
      rest = bytes.subarray(i);
      restOffset += i;
    }
    if (rest.length > 0) {
      if (this.format !== 'npy' && rest.length >= ROW_HEADER_BYTES) this.checkDimension(rest, row, restOffset);
      throw new MalformedFile(`${this.file} ends inside row ${row} at byte ${restOffset}: the row needs ${rowBytes - rest.length} bytes more`);
    }
    if (this.declaredRows !== undefined && row < this.declaredRows)
      throw new MalformedFile(`${this.file} ends at byte ${restOffset}, before row ${row}: its shape has ${this.declaredRows} rows`);
  }

  private checkDimension(raw: Buffer, row: number, offset: number): void {
    const dimension = raw.readInt32LE(0);
    if (dimension !== this.dimension)
      throw new MalformedFile(`${rowPlace(this.file, row, offset)}: dimension ${dimension}, but the file's first row has ${this.dimension}`);
  }

  /** The row in `raw`; float32 bytes are copied as they are, the host being little-endian like the files (x64, arm64). */
  private decode(raw: Buffer, number: number, offset: number): VectorRow {
    const values = this.values;
    if (this.format === 'npy') {
      raw.copy(this.valueBytes);
    } else {
      this.checkDimension(raw, number, offset);
      if (this.format === 'fvecs') raw.copy(this.valueBytes, 0, ROW_HEADER_BYTES);
      else for (let j = 0; j < values.length; j++) values[j] = raw[ROW_HEADER_BYTES + j];
    }
    for (let j = 0; j < values.length; j++) {
      const v = values[j];
      // v - v is 0 for every finite v, NaN for NaN and the infinities.
      if (v - v !== 0) throw new MalformedFile(`${rowPlace(this.file, number, offset)}: value ${j} is ${v}; vectors must be finite`);
    }
    return { number, offset, raw, values };
  }
}
