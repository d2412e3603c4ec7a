// A small source tree for the code-search tests: TypeScript, Python, Markdown, plain text and
// thirty Go files that all match "parses".
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../http/helpers';

const FILES: Record<string, string> = {
  'src/json.ts': `/** Parses JSON text into a value. */\nexport function parseJson(text: string): unknown {\n  return JSON.parse(text);\n}\n\n/** Writes a value as JSON text. */\nexport function writeJson(value: unknown): string {\n  return JSON.stringify(value);\n}\n`,
  'src/yaml.py': `def parse_yaml(text):\n    """Parses YAML text."""\n    return text\n`,
  'docs/guide.md': '# Parsing\n\nHow to parse json and yaml files.\n',
  'notes.txt': 'json json json parse',
  ...Object.fromEntries(
    Array.from({ length: 30 }, (_, i) => [`many/f${i}.go`, `package many\n\n// Helper${i} parses a number.\nfunc Helper${i}() int { return ${i} }\n`]),
  ),
};

/** The tree written to a fresh directory; answers its path. */
export function codeTree(): string {
  const root = tempDir();
  for (const [rel, content] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
  return root;
}
