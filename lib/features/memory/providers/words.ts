// The word tokens the offline providers work on.

/** Lowercased runs of letters, marks and digits, after NFKC (so composed and decomposed accents agree). */
export const words = (text: string): string[] =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];
