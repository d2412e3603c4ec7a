// The languages the code chunker parses with tree-sitter, by file extension, and for each one which
// syntax nodes are symbols (one chunk each) and of what kind. A symbol that is a container (a
// class, interface, struct, impl, namespace) has its nested symbols as chunks of their own; any
// other symbol is a leaf and its chunk holds everything inside it.

/** One grammar of @repomix/tree-sitter-wasms (`out/tree-sitter-${grammar}.wasm`). */
export interface LanguageDef {
  name: string;
  grammar: string;
  /** Node type -> symbol kind; the node's own name, or its declarator's, names it. */
  symbols: Record<string, string>;
  /** Symbol kinds whose nested symbols are chunks of their own. */
  containers: readonly string[];
  /** Node types that wrap a symbol (export, decorators, templates, attributes): the symbol's chunk spans them. */
  wrappers: readonly string[];
  /** Node types that precede a symbol and belong to its chunk: doc comments and attributes. */
  comments: readonly string[];
  attributes?: readonly string[];
}

const CLASSLIKE = ['class', 'interface', 'struct', 'enum', 'trait', 'impl', 'namespace', 'module', 'record', 'annotation'];

const TS_SYMBOLS = {
  function_declaration: 'function',
  generator_function_declaration: 'function',
  function_signature: 'function',
  class_declaration: 'class',
  abstract_class_declaration: 'class',
  method_definition: 'method',
  method_signature: 'method',
  abstract_method_signature: 'method',
  interface_declaration: 'interface',
  type_alias_declaration: 'type',
  enum_declaration: 'enum',
  internal_module: 'namespace',
  module: 'namespace',
  // `const f = () => ...`: the declarator is the symbol when its value is a function (see symbols.ts).
  variable_declarator: 'function',
};
const JS_WRAPPERS = ['export_statement', 'lexical_declaration', 'variable_declaration', 'ambient_declaration'];

const C_SYMBOLS = {
  function_definition: 'function',
  struct_specifier: 'struct',
  union_specifier: 'struct',
  enum_specifier: 'enum',
  type_definition: 'type',
  // A prototype: a header's functions and a class's method declarations are documented there.
  declaration: 'function',
  field_declaration: 'method',
};

export const LANGUAGES: readonly LanguageDef[] = [
  { name: 'typescript', grammar: 'typescript', symbols: TS_SYMBOLS, containers: CLASSLIKE, wrappers: JS_WRAPPERS, comments: ['comment'] },
  { name: 'tsx', grammar: 'tsx', symbols: TS_SYMBOLS, containers: CLASSLIKE, wrappers: JS_WRAPPERS, comments: ['comment'] },
  { name: 'javascript', grammar: 'javascript', symbols: TS_SYMBOLS, containers: CLASSLIKE, wrappers: JS_WRAPPERS, comments: ['comment'] },
  {
    name: 'python',
    grammar: 'python',
    symbols: { function_definition: 'function', class_definition: 'class' },
    containers: CLASSLIKE,
    wrappers: ['decorated_definition'],
    comments: ['comment'],
  },
  {
    name: 'go',
    grammar: 'go',
    symbols: { function_declaration: 'function', method_declaration: 'method', type_spec: 'type', method_elem: 'method' },
    containers: CLASSLIKE,
    wrappers: ['type_declaration'],
    comments: ['comment'],
  },
  {
    name: 'rust',
    grammar: 'rust',
    symbols: {
      function_item: 'function',
      function_signature_item: 'function',
      struct_item: 'struct',
      union_item: 'struct',
      enum_item: 'enum',
      trait_item: 'trait',
      impl_item: 'impl',
      mod_item: 'module',
      type_item: 'type',
      macro_definition: 'macro',
    },
    containers: CLASSLIKE,
    wrappers: [],
    comments: ['line_comment', 'block_comment'],
    attributes: ['attribute_item'],
  },
  {
    name: 'java',
    grammar: 'java',
    symbols: {
      class_declaration: 'class',
      interface_declaration: 'interface',
      enum_declaration: 'enum',
      record_declaration: 'record',
      annotation_type_declaration: 'annotation',
      method_declaration: 'method',
      constructor_declaration: 'method',
    },
    containers: CLASSLIKE,
    wrappers: [],
    comments: ['line_comment', 'block_comment'],
  },
  { name: 'c', grammar: 'c', symbols: C_SYMBOLS, containers: CLASSLIKE, wrappers: [], comments: ['comment'] },
  {
    name: 'cpp',
    grammar: 'cpp',
    symbols: { ...C_SYMBOLS, class_specifier: 'class', namespace_definition: 'namespace' },
    containers: CLASSLIKE,
    wrappers: ['template_declaration'],
    comments: ['comment'],
  },
];

const BY_EXTENSION: Record<string, string> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  pyi: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  c: 'c',
  h: 'cpp', // C++ headers are common and its grammar parses C declarations too
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hh: 'cpp',
  hpp: 'cpp',
  hxx: 'cpp',
};

/** How a file is chunked: by syntax (a language), by Markdown heading, or generically. */
export type FileKind = { ast: LanguageDef } | { markdown: true } | { generic: true };

export function fileKind(path: string): FileKind {
  const ext = /\.([^./]+)$/.exec(path)?.[1].toLowerCase() ?? '';
  if (ext === 'md' || ext === 'markdown') return { markdown: true };
  const name = BY_EXTENSION[ext];
  const def = name && LANGUAGES.find((l) => l.name === name);
  return def ? { ast: def } : { generic: true };
}
