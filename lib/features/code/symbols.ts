// The symbols of one parsed file: every function, method, class, interface, struct, enum, ... as the
// language table names them, each with the span its chunk takes (the wrappers around it, such as
// `export` or decorators, and the doc comments and attributes right before it) and its doc text.
import type { Node } from 'web-tree-sitter';
import type { LanguageDef } from './languages';

export interface CodeSymbol {
  name: string;
  kind: string;
  /** UTF-16 offsets of the chunk: from the first doc comment or wrapper to the symbol's end. */
  start: number;
  end: number;
  doc: string;
  container: boolean;
  children: CodeSymbol[];
}

const FUNCTION_VALUES = ['arrow_function', 'function_expression', 'function', 'generator_function'];
const NAME_NODES = ['identifier', 'field_identifier', 'qualified_identifier', 'operator_name', 'destructor_name', 'type_identifier'];
const NAMESPACES = ['namespace', 'module'];
const SPECIFIERS = ['struct_specifier', 'union_specifier', 'enum_specifier', 'class_specifier'];

/** The symbols under `root`, nested as the source nests them. */
export function symbolsOf(root: Node, def: LanguageDef, source: string): CodeSymbol[] {
  const out: CodeSymbol[] = [];
  collect(root, { def, source }, null, out);
  return out;
}

interface Parsed {
  def: LanguageDef;
  source: string;
}

/** `within`: the kind of the container being walked; null at file level. */
function collect(node: Node, file: Parsed, within: string | null, out: CodeSymbol[]): void {
  const { def } = file;
  for (const child of node.namedChildren) {
    if (!child) continue;
    const found = identify(child, def, within);
    if (!found) {
      collect(child, file, within, out);
      continue;
    }
    const container = def.containers.includes(found.kind);
    const outer = wrapped(child, def);
    const lead = leading(outer, file);
    const docs = lead.filter((n) => def.comments.includes(n.type)).map((n) => commentText(n.text));
    const docstring = def.name === 'python' ? pythonDocstring(child) : '';
    const symbol: CodeSymbol = {
      name: found.name,
      kind: found.kind,
      start: (lead[0] ?? outer).startIndex,
      end: outer.endIndex,
      doc: [...docs, docstring].filter(Boolean).join('\n'),
      container,
      children: [],
    };
    // A leaf symbol's chunk holds all of it; only a container's members are chunks of their own.
    if (container) collect(child, file, found.kind, symbol.children);
    out.push(symbol);
  }
}

/** Whether a node is a symbol, and its name and kind. */
function identify(node: Node, def: LanguageDef, within: string | null): { name: string; kind: string } | null {
  let kind = def.symbols[node.type];
  if (!kind) return null;
  let name: string | undefined;
  switch (node.type) {
    case 'variable_declarator': {
      const value = node.childForFieldName('value')?.type ?? '';
      if (value === 'class') kind = 'class';
      else if (!FUNCTION_VALUES.includes(value)) return null;
      break;
    }
    case 'declaration':
    case 'field_declaration': {
      const d = declarator(node);
      if (!d.isFunction) return null;
      name = d.name;
      break;
    }
    case 'function_definition':
      name = def.name === 'python' ? undefined : declarator(node).name;
      break;
    case 'type_definition': {
      // `typedef struct {...} Name;` is the struct Name; a plain typedef is not a symbol.
      const type = node.childForFieldName('type');
      if (!type || !SPECIFIERS.includes(type.type) || !type.childForFieldName('body')) return null;
      kind = def.symbols[type.type] ?? 'struct';
      name = declarator(node).name;
      break;
    }
    case 'struct_specifier':
    case 'union_specifier':
    case 'enum_specifier':
    case 'class_specifier':
      if (!node.childForFieldName('body') || node.parent?.type === 'type_definition') return null;
      break;
    case 'type_spec': {
      const type = node.childForFieldName('type')?.type;
      kind = type === 'struct_type' ? 'struct' : type === 'interface_type' ? 'interface' : 'type';
      break;
    }
    case 'impl_item': {
      const trait = node.childForFieldName('trait')?.text;
      const type = node.childForFieldName('type')?.text;
      name = trait && type ? `${trait} for ${type}` : type;
      break;
    }
  }
  name ??= node.childForFieldName('name')?.text;
  if (!name) return null;
  // A function of a type is a method; one of a namespace or module stays a function.
  if (kind === 'function' && within !== null && !NAMESPACES.includes(within)) kind = 'method';
  return { name, kind };
}

/** A C/C++ declarator chain's name, and whether it declares a function. */
function declarator(node: Node): { name?: string; isFunction: boolean } {
  let isFunction = false;
  let d = node.childForFieldName('declarator');
  while (d && !NAME_NODES.includes(d.type)) {
    if (d.type === 'function_declarator') isFunction = true;
    d = d.childForFieldName('declarator');
  }
  return { name: d?.text, isFunction };
}

/** The outermost wrapper whose only business is this symbol (export, decorators, template, typedef group). */
function wrapped(node: Node, def: LanguageDef): Node {
  let outer = node;
  while (outer.parent && def.wrappers.includes(outer.parent.type) && outer.parent.namedChildren.filter((c) => c && def.symbols[c.type]).length <= 1)
    outer = outer.parent;
  return outer;
}

/**
 * Doc comments and attributes right before a symbol, first one first: each on lines of its own,
 * no blank line between them and the symbol. A comment trailing code on its line is not a doc.
 */
function leading(node: Node, { def, source }: Parsed): Node[] {
  // Line breaks from a node's end to the next one's start (a line comment may hold its own).
  const breaks = (a: Node, b: Node) => (source.slice(a.endIndex, b.startIndex).match(/\n/g)?.length ?? 0) + (a.text.endsWith('\n') ? 1 : 0);
  const out: Node[] = [];
  let next = node;
  for (let prev = node.previousNamedSibling; prev; prev = prev.previousNamedSibling) {
    const kind = def.comments.includes(prev.type) || def.attributes?.includes(prev.type);
    if (!kind || breaks(prev, next) > 1) break;
    const before = prev.previousSibling;
    if (before && breaks(before, prev) === 0) break;
    out.unshift(prev);
    next = prev;
  }
  return out;
}

/** A comment without its markers: `//`, `///`, `#`, `/** ... *\/` and the ` * ` of each line. */
export function commentText(text: string): string {
  const body = text.startsWith('/*') ? text.replace(/^\/\*+!?/, '').replace(/\*+\/$/, '') : text;
  return body
    .split('\n')
    .map((line) => line.replace(/^\s*(\/\/[/!]?|#|\*(?!\/))?\s?/, '').trimEnd())
    .join('\n')
    .trim();
}

/** A Python function's or class's docstring: the string its body starts with, without quotes. */
function pythonDocstring(node: Node): string {
  const first = node.childForFieldName('body')?.namedChildren[0];
  const string = first?.type === 'expression_statement' ? first.namedChildren[0] : null;
  if (string?.type !== 'string') return '';
  const content = string.namedChildren.filter((c) => c?.type === 'string_content').map((c) => c?.text ?? '');
  return content
    .join('')
    .split('\n')
    .map((l) => l.trim())
    .join('\n')
    .trim();
}
