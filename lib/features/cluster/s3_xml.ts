// The few elements of S3's XML answers the client reads (ListObjectsV2 results, error bodies).
// S3 XML is flat and machine-written, so tag scanning suffices; no XML parser dependency.

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, e: string) =>
    e[0] === '#' ? String.fromCodePoint(e[1] === 'x' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1))) : entities[e],
  );
}

/** The inner XML of each `<tag>...</tag>` in `xml`, in order. */
export function elements(xml: string, tag: string): string[] {
  const found: string[] = [];
  const re = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'g');
  for (let m = re.exec(xml); m; m = re.exec(xml)) found.push(m[1]);
  return found;
}

/** The decoded text of the first `<tag>` in `xml`, or undefined. */
export function text(xml: string, tag: string): string | undefined {
  const [inner] = elements(xml, tag);
  return inner === undefined ? undefined : decode(inner);
}
