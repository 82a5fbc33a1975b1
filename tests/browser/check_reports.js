// Opens servescope's HTML reports in Debian's headless Chromium (playwright-core, no browser
// download) with the network disabled, and holds each page against the --json document it was
// rendered from. Usage:
//   SERVESCOPE_BROWSER_NODE=DIR node check_reports.js ARTIFACT_DIR NAME=KIND:HTML:JSON...
// DIR holds node_modules/playwright-core (tests/browser/setup.sh installs it there). KIND is one
// of plan, explain, diff, why, check, logs, bench, bisect. Per report it asserts:
//   - no request leaves the page: every request that is not the file:// page itself fails the
//     test (and is aborted); the context is offline as well;
//   - no console error and no uncaught page error;
//   - every chart was drawn by uPlot with the series and points the JSON gives (counts and x
//     values computed here from the JSON, by the rules the renderer documents in
//     report/README.md), read from window.__servescopeCharts and the figures' data-series /
//     data-points attributes;
//   - the derivation tree (plan, explain) expands: a closed node's summary is clicked, the node
//     is open and its children (as many as the node's inputs in the JSON) are visible; other
//     <details> (logs' point table, bisect's commands) open the same way;
//   - a full-page screenshot ARTIFACT_DIR/NAME.png.
// Prints one line per check and closes with "N passed, N failed"; exits 1 on any failure.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');

const nodeDir = process.env.SERVESCOPE_BROWSER_NODE;
if (!nodeDir) {
  console.error('check_reports: SERVESCOPE_BROWSER_NODE is not set (tests/browser/run.sh sets it)');
  process.exit(2);
}
const { chromium } = require(path.join(nodeDir, 'node_modules', 'playwright-core'));

const CHROMIUM = process.env.SERVESCOPE_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const KINDS = ['plan', 'explain', 'diff', 'why', 'check', 'logs', 'bench', 'bisect', 'fit', 'compare'];

// ---- what the JSON says the page must hold -------------------------------------------------

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

// The uPlot charts of a report, in page order: {title, series, x}. Only bench and logs draw
// line charts; every other kind has none.
function expectedCharts(kind, doc) {
  const charts = [];
  if (kind === 'bench') {
    const points = Array.isArray(doc.points) ? doc.points : [];
    const rate = points.some((p) => typeof p.rate === 'number');
    const x = points.map((p) => num(rate ? p.rate : p.concurrency));
    charts.push({ title: 'TTFT percentiles', series: 4, x });
    charts.push({ title: 'Inter-token latency and TPOT', series: 4, x });
    charts.push({ title: 'Throughput', series: Array.isArray(doc.slo) ? 3 : 2, x });
    for (const p of points) {
      const server = p.server || {};
      if (server.available && Array.isArray(server.samples) && server.samples.length > 0) {
        charts.push({ title: 'client in flight vs server running', series: 3,
                      x: server.samples.map((s) => num(s.t_s)) });
      }
    }
  } else if (kind === 'fit') {
    // One chart: the most requests held at each cost, and the Pareto front (two series).
    const costs = [...new Set((doc.configurations || []).map((c) => c.cost))].sort((a, b) => a - b);
    if (costs.length >= 2) charts.push({ title: 'Requests held at the target\'s length against cost', series: 2,
                                         x: costs.map(num) });
  } else if (kind === 'logs') {
    for (const t of Array.isArray(doc.timelines) ? doc.timelines : []) {
      const points = Array.isArray(t.points) ? t.points : [];
      if (points.length === 0) continue;
      const x = points.map((p) => num(p.first_line));
      charts.push({ title: 'running and queued requests', series: 2, x });
      charts.push({ title: 'KV cache usage', series: 1, x });
    }
  }
  return charts;
}

// The derivation nodes by id and the tree's roots (the outputs), for plan and explain.
function derivation(kind, doc) {
  const byId = new Map();
  let roots = [];
  if (kind === 'plan') {
    for (const n of (doc.derivation && doc.derivation.nodes) || []) byId.set(n.id, n);
    roots = Object.keys(doc.outputs || {});
  } else if (kind === 'explain') {
    for (const [, list] of Object.entries(doc)) for (const n of list) byId.set(n.id, n);
    roots = Object.keys(doc);
  }
  return { byId, roots };
}

// Tables the JSON sizes: [the <h2> id the table follows, its body rows]. A list left empty in the
// JSON is rendered as a sentence, not a table, so it is not counted.
function expectedTables(kind, doc) {
  const len = (v) => (Array.isArray(v) ? v.length : 0);
  const want = [];
  const add = (id, n) => { if (n > 0) want.push([id, n]); };
  if (kind === 'plan') {
    add('outputs', Object.keys(doc.outputs || {}).length);
    add('findings', len(doc.findings));
  } else if (kind === 'check') {
    add('comparisons', len(doc.comparisons));
  } else if (kind === 'diff') {
    add('changes', len(doc.changes));
  } else if (kind === 'why') {
    add('hypotheses', len(doc.hypotheses) > 0 ? len(doc.hypotheses) : len(doc.closest));
  } else if (kind === 'bench') {
    add('points', len(doc.points));
    if (Array.isArray(doc.slo)) add('slo', len(doc.points));
  } else if (kind === 'bisect') {
    add('experiments', len(doc.experiments));
  } else if (kind === 'fit') {
    add('configurations', len(doc.configurations));
  }
  return want;
}

// ---- the checks ------------------------------------------------------------------------------

async function checkReport(context, name, kind, htmlPath, doc, artifacts, results) {
  const pageUrl = pathToFileURL(path.resolve(htmlPath)).href;
  const failures = [];
  const fail = (what) => failures.push(what);
  const page = await context.newPage();
  const outside = new Set();
  const errors = [];
  page.on('request', (r) => { if (r.url() !== pageUrl) outside.add(r.url()); });
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url === pageUrl) return route.continue();
    outside.add(url);
    return route.abort('blockedbyclient');
  });
  await page.routeWebSocket(/.*/, (ws) => { outside.add(ws.url()); ws.close(); });

  const response = await page.goto(pageUrl, { waitUntil: 'load' });
  if (response && !response.ok()) fail(`loading ${pageUrl} answered ${response.status()}`);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

  // Charts: what uPlot holds against what the JSON says. The page draws a chart when it comes
  // near the viewport: each figure is scrolled to and must then be drawn (bounded wait).
  const want = expectedCharts(kind, doc);
  const figures = page.locator('figure.chart[data-chart]');
  const figureCount = await figures.count();
  const canDraw = await page.evaluate(() => typeof uPlot !== 'undefined');
  for (let i = 0; canDraw && i < figureCount; ++i) {
    await figures.nth(i).scrollIntoViewIfNeeded();
    try {
      await page.waitForFunction((k) => document.querySelectorAll('figure.chart[data-chart]')[k]
        .classList.contains('has-uplot'), i, { timeout: 10000 });
    } catch (e) {
      fail(`chart ${i} not drawn by uPlot once scrolled into view`);
    }
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  const got = await page.evaluate(() => {
    const figs = Array.from(document.querySelectorAll('figure.chart[data-chart]'));
    const drawn = window.__servescopeCharts || [];
    return {
      fallback: !!document.getElementById('svg-fallback'),
      specs: !!document.getElementById('chart-specs'),
      figures: figs.map((f) => ({
        chart: +f.getAttribute('data-chart'),
        series: f.getAttribute('data-series'),
        points: f.getAttribute('data-points'),
        canvas: (() => { const c = f.querySelector('canvas'); return c ? [c.width, c.height] : null; })(),
      })),
      drawn: drawn.slice().sort((a, b) => a.chart - b.chart).map((d) => ({
        chart: d.chart, title: d.title,
        series: d.plot.series.length - 1,
        x: Array.from(d.plot.data[0]),
        lengths: d.plot.data.slice(1).map((s) => s.length),
      })),
    };
  });
  if (want.length > 0 && got.fallback) fail('the page says it was built without uPlot (#svg-fallback)');
  if (got.figures.length !== want.length) fail(`${got.figures.length} chart figures, the JSON gives ${want.length}`);
  if (got.drawn.length !== want.length) fail(`uPlot drew ${got.drawn.length} charts, the JSON gives ${want.length}`);
  if (want.length === 0 && got.specs) fail('chart specs on a page whose JSON has no chart');
  let points = 0;
  for (let i = 0; i < Math.min(want.length, got.drawn.length); ++i) {
    const w = want[i], d = got.drawn[i], f = got.figures[i];
    const label = `chart ${i} (${w.title})`;
    if (d.chart !== i) fail(`${label}: drawn as spec ${d.chart}`);
    if (d.title !== w.title) fail(`${label}: titled '${d.title}'`);
    if (d.series !== w.series) fail(`${label}: ${d.series} series, the JSON gives ${w.series}`);
    if (d.x.length !== w.x.length) fail(`${label}: ${d.x.length} points, the JSON gives ${w.x.length}`);
    else if (d.x.some((v, k) => v !== w.x[k])) fail(`${label}: x values differ from the JSON's`);
    if (d.lengths.some((n) => n !== w.x.length)) fail(`${label}: series lengths ${d.lengths}, want ${w.x.length}`);
    if (f && (f.series !== String(w.series) || f.points !== String(w.x.length)))
      fail(`${label}: figure says data-series=${f.series} data-points=${f.points}, want ${w.series}/${w.x.length}`);
    if (f && !(f.canvas && f.canvas[0] > 0 && f.canvas[1] > 0)) fail(`${label}: no drawn canvas`);
    points += w.x.length;
  }

  // The page is the kind the JSON is, and its tables have the JSON's rows.
  const footer = (await page.locator('footer').textContent()) || '';
  if (!footer.includes(`from the ${kind} --json document`)) fail(`the footer does not name a ${kind} document: ${footer}`);
  for (const [id, rows] of expectedTables(kind, doc)) {
    const n = await page.evaluate((h2) => {
      let e = document.getElementById(h2);
      e = e && e.nextElementSibling;
      while (e && e.tagName !== 'TABLE' && e.tagName !== 'H2') e = e.nextElementSibling;
      return e && e.tagName === 'TABLE' ? e.querySelectorAll('tbody > tr').length : -1;
    }, id);
    if (n !== rows) fail(`table under #${id}: ${n < 0 ? 'none' : `${n} rows`}, the JSON gives ${rows}`);
  }
  if (kind === 'bisect') {
    const culprits = await page.locator('tr.culprit').count();
    const named = Array.isArray(doc.culprits) ? doc.culprits.length : 0;
    if ((culprits > 0) !== (named > 0)) fail(`${culprits} culprit rows highlighted, the JSON names ${named} culprits`);
  }

  // The derivation tree expands (plan, explain).
  const tree = derivation(kind, doc);
  let expanded = '';
  if (kind === 'plan' || kind === 'explain') {
    const top = await page.locator('ul.tree').first().locator(':scope > li').count();
    if (top !== tree.roots.length) fail(`the tree has ${top} roots, the JSON ${tree.roots.length} outputs`);
    const candidate = page.locator('ul.tree details:not([open])').filter({ visible: true }).first();
    if ((await candidate.count()) === 0) {
      fail('no closed, visible node in the derivation tree to expand');
    } else {
      // Pinned: the :not([open]) locator would move on to the next closed node once this opens.
      await candidate.evaluate((d) => d.setAttribute('data-test-target', 'tree'));
      const closed = page.locator('details[data-test-target="tree"]');
      const id = (await closed.locator(':scope > summary > code').first().textContent()).trim();
      const node = tree.byId.get(id);
      const children = closed.locator(':scope > ul > li');
      if (!node) fail(`tree node '${id}' is not in the JSON`);
      else if ((await children.count()) !== node.inputs.length)
        fail(`tree node '${id}' has ${await children.count()} children, the JSON ${node.inputs.length} inputs`);
      if (await children.first().isVisible()) fail(`tree node '${id}' shows its children while closed`);
      await closed.locator(':scope > summary').click();
      if (!(await closed.evaluate((d) => d.open))) fail(`tree node '${id}' did not open on a click`);
      const n = await children.count();
      for (let k = 0; k < n; ++k) {
        if (!(await children.nth(k).isVisible())) { fail(`tree node '${id}': child ${k} not visible once open`); break; }
      }
      expanded = ` tree node ${id} opened (${n} children)`;
    }
  } else {
    // Any other <details> on the page opens on a click and shows what it holds.
    const closed = page.locator('details:not([open])').filter({ visible: true });
    const count = await closed.count();
    if (count > 0) {
      await closed.first().evaluate((e) => e.setAttribute('data-test-target', 'details'));
      const d = page.locator('details[data-test-target="details"]');
      const body = d.locator(':scope > :not(summary)').first();
      await d.locator(':scope > summary').click();
      if (!(await d.evaluate((e) => e.open))) fail('a <details> did not open on a click');
      else if ((await body.count()) > 0 && !(await body.isVisible())) fail('an opened <details> shows nothing');
      expanded = ` ${count} <details>, one opened`;
    }
  }

  fs.mkdirSync(artifacts, { recursive: true });
  const shot = path.join(artifacts, `${name}.png`);
  try {
    await page.screenshot({ path: shot, fullPage: true });
  } catch (e) {
    // Chromium cannot capture a page taller than its texture limit (a long sweep): the viewport.
    await page.screenshot({ path: shot });
  }
  await page.close();

  for (const u of outside) fail(`request outside the page: ${u}`);
  for (const e of errors) fail(e);
  const summary = `${name} (${kind}): ${want.length} charts, ${points} points${expanded}; ${shot}`;
  results.push({ name, failures, summary });
}

async function main() {
  const [artifacts, ...specs] = process.argv.slice(2);
  if (!artifacts || specs.length === 0) {
    console.error('usage: check_reports.js ARTIFACT_DIR NAME=KIND:HTML:JSON...');
    process.exit(2);
  }
  const reports = specs.map((s) => {
    const m = /^([^=]+)=([a-z]+):([^:]+):(.+)$/.exec(s);
    if (!m || !KINDS.includes(m[2])) { console.error(`check_reports: bad report '${s}'`); process.exit(2); }
    return { name: m[1], kind: m[2], html: m[3], json: m[4] };
  });
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'servescope-chromium-'));
  const results = [];
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, offline: true,
      viewport: { width: 1200, height: 900 }, timeout: 60000,
    });
    for (const r of reports) {
      let doc;
      try {
        doc = JSON.parse(fs.readFileSync(r.json, 'utf8'));
      } catch (e) {
        results.push({ name: r.name, failures: [`cannot read ${r.json}: ${e.message}`], summary: r.name });
        continue;
      }
      try {
        await checkReport(context, r.name, r.kind, r.html, doc, artifacts, results);
      } catch (e) {
        results.push({ name: r.name, failures: [`${e.message.split('\n')[0]}`], summary: r.name });
      }
    }
  } finally {
    if (context) await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  let failed = 0;
  for (const r of results) {
    if (r.failures.length === 0) {
      console.log(`ok   ${r.summary}`);
    } else {
      failed += 1;
      console.log(`FAIL ${r.summary}`);
      for (const f of r.failures) console.log(`       ${f}`);
    }
  }
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exit(failed === 0 && results.length === reports.length ? 0 : 1);
}

main().catch((e) => { console.error(`check_reports: ${e.stack || e}`); process.exit(1); });
