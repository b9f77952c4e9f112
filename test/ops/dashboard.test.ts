/**
 * The operator files in `deploy/` against the bot's real metrics: every metric a dashboard
 * panel or an alert rule queries is one the bot's registry exports, so a renamed metric fails
 * here rather than leaving an empty panel or an alert that can never fire.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { parseDocument } from 'yaml';
import { expose, PrometheusMetrics } from '../../src/ops/index.ts';

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFile(new URL(path, root), 'utf8');

/** How a Grafana panel names the datasource chosen in the dashboard's variable. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template.
const DATASOURCE_VARIABLE = '${datasource}';

/** Series Prometheus makes itself for every scrape target, not the bot. */
const PROMETHEUS_MADE = new Set(['up']);

/** Words of PromQL that look like names but are not metrics. */
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads. Kept small rather than complete: string
 * literals, label matchers `{…}`, ranges `[…]`, `offset <duration>`, Grafana variables
 * (`$job`, `${datasource}`, `$__rate_interval`) and label lists of `by`, `without`, `on`,
 * `ignoring`, `group_left` and `group_right` are removed first; of the rest, a name followed
 * by `(` is a function or aggregation, a keyword is skipped, and every other name is a metric.
 * Grafana's `label_values(metric, label)` is read as its metric.
 */
function metricNamesIn(expr: string): string[] {
  const rest = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\blabel_values\s*\(\s*([A-Za-z_:][\w:]*)\s*,[^)]*\)/g, '$1')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\boffset\s+-?\w+/g, ' ')
    .replace(/\$\{[^}]*\}|\$\w+/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  // Numbers first, so `1e3` or `0.95` are never read as names.
  for (const match of rest.matchAll(/\d+(?:\.\d*)?(?:e[+-]?\d+)?|([A-Za-z_:][\w:]*)(\s*\()?/gi)) {
    const [, name, call] = match;
    if (name !== undefined && call === undefined && !KEYWORDS.has(name.toLowerCase())) {
      names.add(name);
    }
  }
  return [...names];
}

/**
 * Every series name an exposition can hold: sample names, and from `# TYPE` lines a
 * histogram's `_bucket`, `_sum` and `_count` (a summary's `_sum`, `_count`) even before
 * anything was observed, and a labelled counter's name before its first increment.
 */
function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\w+)$/.exec(line);
    if (type !== null) {
      const [, name = '', kind] = type;
      names.add(name);
      if (kind === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
      if (kind === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
      continue;
    }
    const sample = /^([A-Za-z_:][\w:]*)[{\s]/.exec(line);
    if (sample?.[1] !== undefined) names.add(sample[1]);
  }
  return names;
}

/** The bot's registry as `/metrics` shows it in a running bot (gauges and readiness watched). */
async function botExposition(): Promise<string> {
  const metrics = new PrometheusMetrics();
  metrics.watch({ queueItems: () => 0, voiceConnections: () => 0 });
  metrics.watchReadiness(async () => [{ ok: true }]);
  return (await expose(metrics.registry)).body;
}

interface Panel {
  id?: unknown;
  title?: unknown;
  datasource?: { uid?: unknown };
  targets?: { expr?: unknown; datasource?: { uid?: unknown } }[];
  panels?: Panel[];
}

interface Dashboard {
  panels: Panel[];
  templating: { list: { name: string; type: string; query?: unknown }[] };
}

/** Panels, with those inside collapsed rows. */
function allPanels(panels: readonly Panel[]): Panel[] {
  return panels.flatMap((panel) => [panel, ...allPanels(panel.panels ?? [])]);
}

/** Every PromQL text of the dashboard, named by where it is. */
function dashboardQueries(dashboard: Dashboard): [string, string][] {
  const queries: [string, string][] = [];
  for (const panel of allPanels(dashboard.panels)) {
    for (const target of panel.targets ?? []) {
      if (typeof target.expr === 'string') queries.push([`panel "${panel.title}"`, target.expr]);
    }
  }
  for (const variable of dashboard.templating.list) {
    const query = variable.query;
    const text = typeof query === 'object' && query !== null ? Reflect.get(query, 'query') : query;
    if (variable.type === 'query' && typeof text === 'string') {
      queries.push([`variable $${variable.name}`, text]);
    }
  }
  return queries;
}

interface Rule {
  alert?: unknown;
  expr?: unknown;
  for?: unknown;
  labels?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** The alert file as YAML 1.2, refusing any error or warning (duplicate keys included). */
async function alertRules(): Promise<Rule[]> {
  const document = parseDocument(await read('deploy/prometheus/alerts.yml'), {
    uniqueKeys: true,
    strict: true,
  });
  expect([...document.errors, ...document.warnings].map((e) => e.message)).toEqual([]);
  const { groups } = document.toJS() as { groups: { name: unknown; rules: Rule[] }[] };
  expect(groups.length).toBeGreaterThan(0);
  for (const group of groups) {
    expect(typeof group.name).toBe('string');
    expect(Array.isArray(group.rules)).toBe(true);
  }
  return groups.flatMap((group) => group.rules);
}

describe('metricNamesIn', () => {
  test.each([
    [
      'sum by (outcome) (rate(tts_generations_total{job=~"$job"}[$__rate_interval])) * 60',
      ['tts_generations_total'],
    ],
    [
      'histogram_quantile(0.95, sum by (job, le) (rate(tts_notice_lag_seconds_bucket[15m]))) > 1.5',
      ['tts_notice_lag_seconds_bucket'],
    ],
    ['sum(rate(a[5m])) without (instance) / on (job) group_left b offset 1h', ['a', 'b']],
    ['(x / y) > 0.1 and z >= 3e2 unless bool_thing', ['x', 'y', 'z', 'bool_thing']],
    ['up{job="tts-bot", note="sum(fake)"} == 0', ['up']],
    ['label_values(tts_generations_total, job)', ['tts_generations_total']],
    ['sum(increase(c{status="429"}[1h])) or vector(0)', ['c']],
    [`${DATASOURCE_VARIABLE} $job`, []],
  ])('%s', (expr, names) => {
    expect(metricNamesIn(expr)).toEqual(names);
  });
});

const dashboard = JSON.parse(await read('deploy/grafana/tts-bot.json')) as Dashboard;

describe('deploy/grafana/tts-bot.json', () => {
  test('queries only metrics the bot exports', async () => {
    const exported = exportedNames(await botExposition());
    const queries = dashboardQueries(dashboard);
    expect(queries.length).toBeGreaterThan(10);
    // Each query reads something: the tokenizer did not strip a metric away.
    for (const [where, expr] of queries) expect(metricNamesIn(expr), where).not.toEqual([]);
    const unknown = queries.flatMap(([where, expr]) =>
      metricNamesIn(expr)
        .filter((name) => !exported.has(name) && !PROMETHEUS_MADE.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  test('panel ids are unique, and every query goes to the datasource variable', () => {
    const panels = allPanels(dashboard.panels);
    const ids = panels.map((panel) => panel.id);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const datasource = dashboard.templating.list.find((v) => v.type === 'datasource');
    expect(datasource).toMatchObject({ name: 'datasource', query: 'prometheus' });
    for (const panel of panels) {
      expect(panel.datasource?.uid, String(panel.title)).toBe(DATASOURCE_VARIABLE);
      for (const target of panel.targets ?? []) {
        expect(target.datasource?.uid, String(panel.title)).toBe(DATASOURCE_VARIABLE);
      }
    }
  });
});

describe('deploy/prometheus/alerts.yml', () => {
  test('parses as YAML into named rules with an expression, a severity and a summary', async () => {
    const rules = await alertRules();
    expect(rules.map((rule) => rule.alert)).toEqual([
      'TtsApiRateLimited',
      'TtsGenerationsFailing',
      'TtsNoticeLagHigh',
      'TtsBotNotReady',
      'TtsBotDown',
    ]);
    for (const rule of rules) {
      expect(typeof rule.expr, String(rule.alert)).toBe('string');
      if (rule.for !== undefined) expect(rule.for).toMatch(/^\d+[smhd]$/);
      expect(['warning', 'critical']).toContain(rule.labels?.severity);
      expect(typeof rule.annotations?.summary).toBe('string');
      expect(typeof rule.annotations?.description).toBe('string');
    }
  });

  test('queries only metrics the bot exports (and `up`, which Prometheus makes)', async () => {
    const exported = exportedNames(await botExposition());
    const unknown = (await alertRules()).flatMap((rule) =>
      metricNamesIn(String(rule.expr))
        .filter((name) => !exported.has(name) && !PROMETHEUS_MADE.has(name))
        .map((name) => `${String(rule.alert)}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });
});
