// docs/grafana-dashboard.json against the service it charts: every metric its queries name is one
// /metrics exposes, every svc_ metric has a panel, and every query is PromQL promtool accepts.
import test from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { testNeedingTools } from '../harness/optional_tools';
import { tempDir } from '../http/helpers';
import { promtool, scrapedServer } from './scrape';

interface Dashboard {
  panels: { title: string; targets?: { expr: string }[] }[];
  templating: { list: { name: string; query?: string | { query: string } }[] };
}

const dashboard: Dashboard = JSON.parse(readFileSync(path.resolve(__dirname, '../../../docs/grafana-dashboard.json'), 'utf8'));

const queries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((target) => ({ panel: p.title, expr: target.expr })));

/** The variables' queries: `label_values(metric, label)`, whose metric counts like a query's. */
const variableMetrics = dashboard.templating.list.flatMap((v) => {
  const query = typeof v.query === 'object' ? v.query.query : '';
  const m = /^label_values\((\w+),\s*\w+\)$/.exec(query);
  return m ? [m[1]] : [];
});

const PROMQL_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset']);

/** The metric names a PromQL expression reads: identifiers left once strings, matchers, ranges, label lists and calls are gone. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/\b[a-zA-Z_][\w:]*\b(?!\s*\()/g)].map((m) => m[0]).filter((name) => !PROMQL_KEYWORDS.has(name));
}

/** Every series name a scrape can hold: each family's, and for histograms and summaries their suffixed series. */
function exposedNames(scrape: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    const suffixes = type === 'histogram' ? ['_bucket', '_sum', '_count'] : type === 'summary' ? ['_sum', '_count'] : [];
    for (const suffix of suffixes) names.add(name + suffix);
  }
  return names;
}

test('the dashboard has queries, and each names at least one metric', (t) => {
  t.true(queries.length >= 20);
  for (const { panel, expr } of queries) t.true(metricNames(expr).length > 0, `${panel}: ${expr}`);
});

test('every metric the dashboard queries is exposed by a live /metrics', async (t) => {
  const exposed = exposedNames(await scrapedServer(t));
  const referenced = new Set([...queries.flatMap((q) => metricNames(q.expr)), ...variableMetrics]);
  t.deepEqual(
    [...referenced].filter((name) => !exposed.has(name)),
    [],
  );
});

test('every svc_ metric /metrics exposes has a panel', async (t) => {
  const families = [...(await scrapedServer(t)).matchAll(/^# TYPE (svc_\S+) /gm)].map((m) => m[1]);
  const charted = queries.flatMap((q) => metricNames(q.expr));
  t.deepEqual(
    families.filter((family) => !charted.some((name) => name === family || name.startsWith(`${family}_`))),
    [],
  );
});

/** A query with Grafana's variables given values, so it is plain PromQL. */
const asPromql = (expr: string) => expr.replaceAll('$__rate_interval', '5m').replaceAll('$instance', '.*');

testNeedingTools(['promtool'], 'every dashboard query is valid PromQL (promtool check rules)', async (t) => {
  const rules = queries.map((q, i) => ({ record: `dashboard:query_${i}`, expr: asPromql(q.expr) }));
  for (const rule of rules) t.false(rule.expr.includes('$'), `a variable left in ${rule.expr}`);
  // JSON is YAML, so the rule file needs no YAML writer.
  const file = path.join(tempDir(), 'dashboard-rules.yml');
  writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules }] }));
  const checked = await promtool(['check', 'rules', file], '');
  t.is(checked.code, 0, checked.output);
});
