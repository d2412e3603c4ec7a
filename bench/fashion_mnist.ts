// Fashion-MNIST as the benchmarks read it: Debian's dataset-fashion-mnist (the ann-benchmarks
// fashion-mnist-784-euclidean set), IDX files of uint8 images (60,000 train, 10,000 test, 28 x 28)
// and their class labels. bench/ann-deps.sh installs it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';

export const FASHION_DIR = '/usr/share/datasets/fashion-mnist';
export const FASHION_DIM = 784;
/** The ten classes, by label. */
export const FASHION_CLASSES = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot'];

/** Throws naming the package when the data set is not installed. */
export function requireFashion(): void {
  if (!fs.existsSync(path.join(FASHION_DIR, 'train-images-idx3-ubyte.gz')))
    throw new Error(`${FASHION_DIR} is missing: run bench/ann-deps.sh (apt-get install dataset-fashion-mnist)`);
}

function readGz(name: string, magic: number): Buffer {
  const file = path.join(FASHION_DIR, name);
  const buf = zlib.gunzipSync(fs.readFileSync(file));
  if (buf.readUInt32BE(0) !== magic) throw new Error(`${file}: not an IDX uint8 file of the expected kind`);
  return buf;
}

/** `train` or `t10k` images: count, pixels per image, and the pixels row after row. */
export function readImages(set: 'train' | 't10k'): { count: number; dim: number; bytes: Uint8Array } {
  const buf = readGz(`${set}-images-idx3-ubyte.gz`, 0x803);
  return { count: buf.readUInt32BE(4), dim: buf.readUInt32BE(8) * buf.readUInt32BE(12), bytes: buf.subarray(16) };
}

/** `train` or `t10k` labels, 0 to 9 (FASHION_CLASSES), one per image. */
export function readLabels(set: 'train' | 't10k'): Uint8Array {
  return readGz(`${set}-labels-idx1-ubyte.gz`, 0x801).subarray(8);
}
