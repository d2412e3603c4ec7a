// Pieces of one buffer that lie one after another, viewed as runs without a copy: hashing or
// sending a run is one call where a call per row would cost more than the row's bytes.

/** `pieces` (in order) as views of the runs they make: consecutive pieces of one buffer, each `gap` bytes after the one before. */
export function contiguousRuns(pieces: readonly Uint8Array[], gap = 0): Buffer[] {
  const runs: Buffer[] = [];
  for (let i = 0; i < pieces.length; ) {
    const first = pieces[i];
    let end = first.byteOffset + first.length;
    for (i++; i < pieces.length && pieces[i].buffer === first.buffer && pieces[i].byteOffset === end + gap; i++) end = pieces[i].byteOffset + pieces[i].length;
    runs.push(Buffer.from(first.buffer, first.byteOffset, end - first.byteOffset));
  }
  return runs;
}
