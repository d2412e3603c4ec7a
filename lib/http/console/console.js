// Tessera console: the page's one script. It reads the public HTTP API with fetch, sending the
// bearer token the user typed (kept in this tab's sessionStorage, only ever sent as a header):
// collections with their counts and the store's stats, a playground for the read routes, and the
// request rate and latency plotted from /metrics. Everything shown is set as text, never as HTML.

const $ = (id) => document.getElementById(id);

// ---- Calling the API

const TOKEN_KEY = 'tessera-token';

/** Routes that answer for the whole process: a --namespaced server serves them without a prefix (tessera/client's PROCESS_ROUTES; a test keeps the two equal). */
const PROCESS_ROUTES = new Set(['/health', '/ready', '/metrics', '/namespaces', '/openapi.json']);

/** The tenant this page shows on a --namespaced server (`?ns=` in its URL), else null. */
let namespace = new URLSearchParams(location.search).get('ns') || null;

/** Where `path` is served: under /ns/{namespace} for a store route once a namespace is chosen. */
const served = (path) => (namespace !== null && !PROCESS_ROUTES.has(path) ? `/ns/${encodeURIComponent(namespace)}${path}` : path);

/** An answer other than 200, as a thrown error. */
class ApiError extends Error {
  constructor(answer) {
    super(typeof answer.body === 'object' && answer.body?.error ? answer.body.error : answer.text);
    this.status = answer.status;
  }
}

/** JSON.parse keeping integers past 2^53 exact (as BigInt) where the browser hands over the source text. */
const parseJson = (text) =>
  JSON.parse(text, (_key, value, context) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(context?.source ?? '') ? BigInt(context.source) : value,
  );

/** Indented JSON with arrays of numbers (vectors) on one line, a BigInt written as the exact integer it is. */
const showJson = (value) =>
  JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? (JSON.rawJSON?.(String(v)) ?? String(v)) : v), 2).replace(
    /\[\s+([-+\d.eE,\s]+?)\s+\]/g,
    (_match, numbers) => `[${numbers.split(/,\s+/).join(', ')}]`,
  );

/** One call: `{status, body, text, ms}`, body parsed when it is JSON. A string body is sent as it is. */
async function api(method, path, body) {
  const headers = {};
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const payload = body === undefined || typeof body === 'string' ? body : JSON.stringify(body);
  const started = performance.now();
  const res = await fetch(served(path), { method, headers, body: payload, cache: 'no-store' });
  const text = await res.text();
  let parsed = text;
  try {
    parsed = parseJson(text);
  } catch {
    // not JSON (the /metrics text): the text is the body
  }
  return { status: res.status, body: parsed, text, ms: performance.now() - started };
}

/** The body of a 200, else the answer thrown as an ApiError. */
async function read(method, path, body) {
  const answer = await api(method, path, body);
  if (answer.status !== 200) throw new ApiError(answer);
  return answer.body;
}

function messageOf(err) {
  if (!(err instanceof ApiError)) return `cannot reach the server: ${err.message}`;
  const hint = err.status === 401 ? ' (enter the server’s token above)' : '';
  return `${err.status}: ${err.message}${hint}`;
}

function notice(text, isError = false) {
  $('notice').textContent = text;
  $('notice').classList.toggle('error', isError);
}

// ---- The token

function showTokenState() {
  const set = sessionStorage.getItem(TOKEN_KEY) !== null;
  $('token').placeholder = set ? 'token set for this tab' : 'only if the server has --token';
  $('token-forget').disabled = !set;
}

$('token-form').addEventListener('submit', (event) => {
  event.preventDefault(); // a submitted form would put the token in the URL
  const token = $('token').value.trim();
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
  $('token').value = '';
  showTokenState();
  loadStore();
});

$('token-forget').addEventListener('click', () => {
  sessionStorage.removeItem(TOKEN_KEY);
  showTokenState();
  loadStore();
});

// ---- Collections and store stats

/** What the playground's samples need of the store, known once /stats answered. */
const known = { dimension: 0, collection: null };

const cell = (text, className) => {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
};

function renderCollections(names, counts, aliases) {
  const rows = names.map((name, i) => {
    const tr = document.createElement('tr');
    const open = document.createElement('button');
    open.type = 'button';
    open.className = 'link';
    open.textContent = name;
    open.title = `list ${name} in the playground`;
    open.addEventListener('click', () => browse(name));
    const nameCell = cell('');
    nameCell.append(open);
    const pointing = Object.keys(aliases).filter((alias) => aliases[alias] === name);
    tr.append(nameCell, cell(counts[i], 'number'), cell(pointing.join(', ')));
    return tr;
  });
  if (rows.length === 0) {
    const tr = document.createElement('tr');
    const td = cell('no collections yet: the first upsert creates one');
    td.colSpan = 3;
    tr.append(td);
    rows.push(tr);
  }
  $('collections').tBodies[0].replaceChildren(...rows);
}

const bytes = (n) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`);

function renderStats(stats) {
  const f = stats.footprint ?? {};
  const ann = stats.ann;
  const entries = [
    ['dimension', stats.dimension],
    ['distance', stats.distance],
    [
      'index',
      ann
        ? `${ann.kind} (${Object.entries(ann)
            .filter(([k]) => k !== 'kind')
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')})`
        : 'exact scan',
    ],
    ['quantization', stats.quantization ? `${stats.quantization.kind}, rescore ${stats.quantization.rescore}` : 'none'],
    ['records', f.doc_count],
    ['rows', f.rows === undefined ? undefined : `${f.rows} (${f.dead_rows} reclaimable)`],
    ['segments', f.segments],
    ['vectors', f.vector_bytes === undefined ? undefined : bytes(f.vector_bytes)],
    ['text index', stats.text_index_bytes === undefined ? undefined : bytes(stats.text_index_bytes)],
    ['kernels', stats.kernels],
    ['query threads', stats.query_threads],
    ['features', stats.features?.join(', ') || 'none'],
  ];
  const items = entries
    .filter(([, value]) => value !== undefined && value !== null)
    .flatMap(([label, value]) => {
      const dt = document.createElement('dt');
      const dd = document.createElement('dd');
      dt.textContent = label;
      dd.textContent = String(value);
      return [dt, dd];
    });
  $('stats').replaceChildren(...items);
}

/** A --namespaced server's namespace form, offering its open tenants. */
async function showNamespaces() {
  const names = await read('GET', '/namespaces');
  $('namespace-form').hidden = false;
  $('namespace').value = namespace ?? '';
  $('namespaces').replaceChildren(
    ...names.map(({ name }) => {
      const option = document.createElement('option');
      option.value = name;
      return option;
    }),
  );
}

/** The 400 a --namespaced server answers a store route sent without /ns/{namespace}. */
const wantsNamespace = (err) => namespace === null && err instanceof ApiError && err.status === 400 && /--namespaced/.test(err.message);

$('namespace-form').addEventListener('submit', (event) => {
  event.preventDefault();
  namespace = $('namespace').value.trim() || null;
  history.replaceState(null, '', namespace === null ? location.pathname : `?ns=${encodeURIComponent(namespace)}`);
  loadStore();
});

/** The collections, each with its record count (an /aggregate over it alone), and the store's stats. */
async function loadStore() {
  try {
    if (namespace !== null) await showNamespaces();
    const [stats, names, aliases] = await Promise.all([read('GET', '/stats'), read('GET', '/collections'), read('GET', '/aliases')]);
    const counts = await Promise.all(
      names.map((name) =>
        read('POST', '/aggregate', { scope: [name] }).then(
          (a) => String(a.count),
          () => '?',
        ),
      ),
    );
    renderCollections(names, counts, aliases);
    renderStats(stats);
    known.dimension = stats.dimension;
    known.collection = names[0] ?? null;
    if ($('request').value === '') $('request').value = sample($('route').value);
    notice('');
  } catch (err) {
    if (wantsNamespace(err)) {
      // The form first, then the notice that points at it (what a reader, or a test, waits for).
      await showNamespaces().then(
        () => notice('this server is --namespaced: choose a namespace (tenant) above'),
        (e) => notice(messageOf(e), true),
      );
    } else {
      notice(messageOf(err), true);
    }
  }
}

$('refresh').addEventListener('click', loadStore);

// ---- Playground

const sqlName = (name) => (/^[A-Za-z_][\w.-]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`);

/** A request to start from, per route. */
function sample(route) {
  const vector = Array.from({ length: known.dimension }, (_, i) => Math.round(Math.sin(i + 1) * 1000) / 1000);
  const bodies = {
    '/search': { query: vector, top_k: 10, plan: true },
    '/text-search': { field: 'text', query: 'hello', top_k: 10 },
    '/hybrid-search': { vector, field: 'text', text: 'hello', top_k: 10, plan: true },
    '/list': { limit: 20 },
    '/query': { sql: `SELECT * FROM ${sqlName(known.collection ?? 'my_collection')} LIMIT 10` },
  };
  return showJson(bodies[route]);
}

/** What the user wrote per route, so switching routes and back keeps it. */
const drafts = new Map();
let shownRoute = $('route').value;

$('route').addEventListener('change', () => {
  drafts.set(shownRoute, $('request').value);
  shownRoute = $('route').value;
  $('request').value = drafts.get(shownRoute) ?? sample(shownRoute);
});

function browse(collection) {
  drafts.set(shownRoute, $('request').value);
  shownRoute = '/list';
  $('route').value = shownRoute;
  $('request').value = showJson({ scope: [collection], limit: 20 });
  run();
}

function outcome(text, isError = false) {
  $('outcome').textContent = text;
  $('outcome').classList.toggle('error', isError);
}

const isHit = (h) => typeof h === 'object' && h !== null && 'collection' in h && 'id' in h;

/** The hits of a ranked answer: a bare array, or the `hits` of `{hits, plan}`; null for any other answer. */
function hitsOf(body) {
  if (Array.isArray(body)) return body.every(isHit) ? body : null;
  return Array.isArray(body?.hits) ? body.hits : null;
}

/** One attribute value, compactly: the tagged Value's payload. */
function compactValue(value) {
  if (value === 'Null' || typeof value !== 'object' || value === null) return String(value);
  const [[tag, payload]] = Object.entries(value);
  if (tag === 'Str') return JSON.stringify(payload);
  if (tag === 'List') return `[${payload.map((s) => JSON.stringify(s)).join(', ')}]`;
  if (tag === 'DateTime') {
    const date = new Date(Number(payload));
    return Number.isNaN(date.getTime()) ? String(payload) : date.toISOString();
  }
  return String(payload);
}

const ATTRS_SHOWN = 200;

function renderHits(hits) {
  const rows = hits.map((hit, i) => {
    const tr = document.createElement('tr');
    const attrs = Object.entries(hit.attrs ?? {})
      .map(([key, value]) => `${key}=${compactValue(value)}`)
      .join('  ');
    const attrsCell = cell(attrs.length > ATTRS_SHOWN ? `${attrs.slice(0, ATTRS_SHOWN)}…` : attrs, 'attrs');
    attrsCell.title = attrs;
    const score = typeof hit.score === 'number' && !Number.isInteger(hit.score) ? hit.score.toFixed(4) : String(hit.score);
    tr.append(cell(String(i + 1), 'number'), cell(hit.collection), cell(hit.id), cell(score, 'number'), attrsCell);
    return tr;
  });
  if (rows.length === 0) {
    const tr = document.createElement('tr');
    const td = cell('no hits');
    td.colSpan = 5;
    tr.append(td);
    rows.push(tr);
  }
  $('hits').tBodies[0].replaceChildren(...rows);
  $('hits').hidden = false;
}

function renderPlan(plan) {
  const parts = [`path ${plan.path}`];
  if (plan.timings?.total_us !== undefined) parts.push(`${plan.timings.total_us} µs`);
  if (plan.rows_scanned !== undefined) parts.push(`${plan.rows_scanned} rows scanned`);
  if (plan.rows_rescored !== undefined) parts.push(`${plan.rows_rescored} rescored`);
  if (plan.candidates) parts.push(`${plan.candidates.surfaced} candidates surfaced, ${plan.candidates.survived} survived`);
  if (plan.narrowing) parts.push(`filter index ${plan.narrowing.state}`);
  $('plan-summary').textContent = parts.join(' · ');
  $('plan').textContent = showJson(plan);
  $('plan-box').hidden = false;
}

/** Counts runs, so an answer arriving after a newer run started is dropped. */
let runs = 0;

async function run() {
  const route = $('route').value;
  const text = $('request').value;
  const mine = ++runs;
  $('hits').hidden = true;
  $('plan-box').hidden = true;
  $('raw-box').hidden = true;
  try {
    parseJson(text);
  } catch (err) {
    outcome(`the request is not JSON: ${err.message}`, true);
    return;
  }
  outcome(`POST ${route} …`);
  let answer;
  try {
    answer = await api('POST', route, text); // the text as typed: its integers stay exact
  } catch (err) {
    if (mine === runs) outcome(`POST ${route} → ${messageOf(err)}`, true);
    return;
  }
  if (mine !== runs) return;
  $('raw').textContent = typeof answer.body === 'string' ? answer.body : showJson(answer.body);
  $('raw-box').hidden = false;
  if (answer.status !== 200) {
    $('raw-box').open = false;
    outcome(`POST ${route} → ${messageOf(new ApiError(answer))}`, true);
    return;
  }
  const hits = hitsOf(answer.body);
  if (hits) renderHits(hits);
  if (answer.body?.plan) renderPlan(answer.body.plan);
  $('raw-box').open = !hits;
  const what = hits ? `${hits.length} hit${hits.length === 1 ? '' : 's'}` : 'the answer is below';
  outcome(`POST ${route} → 200 · ${what} · ${Math.round(answer.ms)} ms`);
}

$('run').addEventListener('click', run);
$('request').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    run();
  }
});

// ---- Live plots from /metrics

const POLL_MS = 1000;
const HISTORY = 120; // points kept: two minutes at one a second

/** Requests completed and the duration histogram's cumulative buckets, over every route but /metrics (our own polling). */
function parseMetrics(text) {
  let requests = 0;
  const buckets = new Map();
  for (const line of text.split('\n')) {
    const m = /^(svc_http_requests_total|svc_http_request_duration_seconds_bucket)\{([^}]*)\} (\S+)/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => [name, value]));
    if (labels.route === '/metrics') continue;
    const value = Number(m[3]);
    if (m[1] === 'svc_http_requests_total') requests += value;
    else buckets.set(labels.le, (buckets.get(labels.le) ?? 0) + value);
  }
  return { requests, buckets, at: performance.now() / 1000 };
}

/**
 * The q-quantile of a histogram given as ascending [upper bound, cumulative count] pairs, the last
 * bound Infinity: linear within the bucket holding it, as Prometheus's histogram_quantile does.
 */
function quantile(q, cumulative) {
  const total = cumulative.at(-1)?.[1] ?? 0;
  if (!(total > 0)) return null;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [upper, count] of cumulative) {
    if (count >= rank) return upper === Infinity ? lower : lower + ((upper - lower) * (rank - below)) / (count - below);
    lower = upper;
    below = count;
  }
  return lower;
}

const series = { rate: [], p50: [], p99: [] };
let previous = null;

const keep = (values, value) => {
  values.push(value);
  if (values.length > HISTORY) values.shift();
};

function addSample(now) {
  // The first scrape, or one after the server restarted, only sets the baseline.
  if (previous && now.requests >= previous.requests) {
    keep(series.rate, (now.requests - previous.requests) / (now.at - previous.at));
    const cumulative = [...now.buckets].map(([le, count]) => [Number(le), count - (previous.buckets.get(le) ?? 0)]).sort((a, b) => a[0] - b[0]);
    const ms = (seconds) => (seconds === null ? null : seconds * 1000);
    keep(series.p50, ms(quantile(0.5, cumulative)));
    keep(series.p99, ms(quantile(0.99, cumulative)));
    redraw();
  }
  previous = now;
}

const figure = (value) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

/** A round number at or above `value`: 1, 2 or 5 times a power of ten. */
function roundUp(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= value);
}

/** Draws `lines` (values, CSS colour variable) oldest to newest, newest at the right edge. */
function plot(canvas, lines, unit) {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const g = canvas.getContext('2d');
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  const style = getComputedStyle(canvas);
  const colour = (name) => style.getPropertyValue(name).trim();
  const box = { left: 52, right: width - 8, top: 8, bottom: height - 18 };
  const top = roundUp(Math.max(0, ...lines.flatMap((l) => l.values.filter((v) => v !== null))));
  const y = (v) => box.bottom - (v / top) * (box.bottom - box.top);
  const x = (i, n) => box.right - (n - 1 - i) * ((box.right - box.left) / (HISTORY - 1));

  g.font = '11px system-ui, sans-serif';
  g.lineWidth = 1;
  g.strokeStyle = colour('--line');
  g.fillStyle = colour('--muted');
  g.textBaseline = 'middle';
  for (const f of [0, 0.5, 1]) {
    g.beginPath();
    g.moveTo(box.left, y(top * f));
    g.lineTo(box.right, y(top * f));
    g.stroke();
    g.textAlign = 'right';
    g.fillText(`${figure(top * f)} ${unit}`, box.left - 6, y(top * f));
  }
  g.textAlign = 'left';
  g.fillText(`${Math.round((HISTORY * POLL_MS) / 60000)} min ago`, box.left, height - 6);
  g.textAlign = 'right';
  g.fillText('now', box.right, height - 6);

  g.lineWidth = 1.5;
  for (const { values, color } of lines) {
    g.strokeStyle = g.fillStyle = colour(color);
    g.beginPath();
    let drawing = false;
    values.forEach((v, i) => {
      if (v === null) {
        drawing = false;
        return;
      }
      if (drawing) g.lineTo(x(i, values.length), y(v));
      else g.moveTo(x(i, values.length), y(v));
      drawing = true;
    });
    g.stroke();
    const last = values.at(-1);
    if (last !== undefined && last !== null) g.fillRect(x(values.length - 1, values.length) - 2, y(last) - 2, 4, 4);
  }
  canvas.dataset.points = String(lines[0].values.length);
}

/** A caption of coloured keys, each `[text, class]`. */
function caption(element, keys) {
  element.replaceChildren(
    ...keys.flatMap(([text, className], i) => {
      const span = document.createElement('span');
      span.textContent = text;
      span.className = className;
      return i === 0 ? [span] : [' · ', span];
    }),
  );
}

function redraw() {
  plot($('rate-plot'), [{ values: series.rate, color: '--series-1' }], '/s');
  plot(
    $('latency-plot'),
    [
      { values: series.p50, color: '--series-1' },
      { values: series.p99, color: '--series-2' },
    ],
    'ms',
  );
  const rate = series.rate.at(-1);
  if (rate !== undefined) caption($('rate-now'), [[`${figure(rate)} requests/s (all routes but /metrics)`, 'key-1']]);
  const p50 = series.p50.at(-1);
  const p99 = series.p99.at(-1);
  if (p50 === null) caption($('latency-now'), [['latency: no requests in the last second', '']]);
  else if (p50 !== undefined)
    caption($('latency-now'), [
      [`p50 ${figure(p50)} ms`, 'key-1'],
      [`p99 ${figure(p99)} ms`, 'key-2'],
    ]);
}

async function poll() {
  try {
    if (!document.hidden) addSample(parseMetrics(await read('GET', '/metrics')));
  } catch (err) {
    caption($('rate-now'), [[`metrics unavailable: ${messageOf(err)}`, 'error']]);
  }
  setTimeout(poll, POLL_MS);
}

window.addEventListener('resize', redraw);

showTokenState();
loadStore();
poll();
