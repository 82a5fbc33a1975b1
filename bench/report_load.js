// Load time of HTML reports in Debian's headless Chromium, beside an empty page in the same run
// (bench/report_load.sh makes the reports). Usage:
//   SERVESCOPE_BROWSER_NODE=DIR node report_load.js RUNS EMPTY.html NAME=REPORT.html...
// One browser; per run and per page (in turn, so drift hits every page alike) a fresh tab
// opens the file:// page with the network blocked and the time is taken from the navigation's
// start to the load event and two animation frames after it (the inline scripts, uPlot's charts
// included, have run and painted by then); the charts on the first screen must be drawn by then
// (the page draws the others as they near the viewport). Then the page is scrolled straight to
// its first chart and the time from the navigation's start until that chart is drawn is taken
// too. Prints, hyperfine-like, the mean ± σ, min … max per page, each report's mean over the
// empty page's, and whether each report opens (and draws its first chart) in under 2 s.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');

const { chromium } = require(path.join(process.env.SERVESCOPE_BROWSER_NODE, 'node_modules', 'playwright-core'));
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

async function loadOnce(context, file) {
  const url = pathToFileURL(path.resolve(file)).href;
  const page = await context.newPage();
  const outside = [];
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.route('**/*', (r) => {
    if (r.request().url() === url) return r.continue();
    outside.push(r.request().url());
    return r.abort('blockedbyclient');
  });
  const t0 = Date.now();
  await page.goto(url, { waitUntil: 'load', timeout: 120000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const wall = Date.now() - t0;
  const info = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const figs = Array.from(document.querySelectorAll('figure.chart[data-chart]'));
    return {
      ms: performance.now() - (nav ? nav.startTime : 0),
      figures: figs.length,
      onScreen: figs.filter((f) => f.getBoundingClientRect().top < window.innerHeight).length,
      onScreenDrawn: figs.filter((f) => f.getBoundingClientRect().top < window.innerHeight &&
                                        f.classList.contains('has-uplot')).length,
      drawn: (window.__servescopeCharts || []).length,
    };
  });
  // Then straight to the first chart: the time from the navigation's start until it is drawn.
  info.firstChartMs = await page.evaluate(() => new Promise((resolve) => {
    const nav = performance.getEntriesByType('navigation')[0];
    const fig = document.querySelector('figure.chart[data-chart]');
    if (!fig) return resolve(null);
    fig.scrollIntoView();
    const deadline = performance.now() + 10000;
    (function poll() {
      if (fig.classList.contains('has-uplot'))
        return requestAnimationFrame(() => resolve(performance.now() - (nav ? nav.startTime : 0)));
      if (performance.now() > deadline) return resolve(-1);
      requestAnimationFrame(poll);
    })();
  }));
  await page.close();
  if (info.firstChartMs === -1) throw new Error(`${file}: the first chart was not drawn 10 s after it was scrolled to`);
  if (outside.length) throw new Error(`${file}: requests outside the page: ${outside.join(' ')}`);
  if (errors.length) throw new Error(`${file}: ${errors.join('; ')}`);
  // The charts on the first screen must be drawn by then; the others draw as they are scrolled to.
  if (info.onScreenDrawn !== info.onScreen)
    throw new Error(`${file}: ${info.onScreenDrawn} of the ${info.onScreen} charts on the first screen drawn`);
  return { ms: info.ms, wall, charts: info.figures, drawn: info.drawn, first: info.firstChartMs };
}

const stats = (xs) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, xs.length - 1));
  return { mean, sd, min: Math.min(...xs), max: Math.max(...xs) };
};

async function main() {
  const [runsText, empty, ...specs] = process.argv.slice(2);
  const runs = Math.max(1, Math.min(50, parseInt(runsText, 10) || 5));
  const pages = [{ name: 'empty page', file: empty }].concat(specs.map((s) => {
    const at = s.indexOf('=');
    return { name: s.slice(0, at), file: s.slice(at + 1) };
  }));
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'servescope-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.SERVESCOPE_CHROMIUM || '/usr/bin/chromium', headless: true,
    args: CHROMIUM_ARGS, offline: true, viewport: { width: 1200, height: 900 }, timeout: 60000,
  });
  const times = pages.map(() => []);
  const firsts = pages.map(() => []);
  const charts = pages.map(() => [0, 0]);
  try {
    for (const p of pages) await loadOnce(context, p.file);  // a warm-up run, not counted
    for (let r = 0; r < runs; ++r) {
      for (const [i, p] of pages.entries()) {
        const t = await loadOnce(context, p.file);
        times[i].push(t.ms);
        if (t.first !== null) firsts[i].push(t.first);
        charts[i] = [t.drawn, t.charts];
      }
    }
  } finally {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  const base = stats(times[0]).mean;
  console.log(`${runs} runs per page (after one warm-up), navigation start to load + 2 frames, headless Chromium;`);
  console.log('charts drawn: at open / on the page (the rest draw as they are scrolled to)');
  for (const [i, p] of pages.entries()) {
    const s = stats(times[i]);
    const size = fs.statSync(p.file).size;
    const drawnOf = `${charts[i][0]}/${charts[i][1]}`;
    console.log(`${p.name.padEnd(26)} ${(size / 1024).toFixed(0).padStart(7)} KiB  ${drawnOf.padStart(9)} charts drawn  ` +
                `${s.mean.toFixed(1).padStart(8)} ms ± ${s.sd.toFixed(1).padStart(6)}  [${s.min.toFixed(1)} … ${s.max.toFixed(1)}]` +
                (i === 0 ? '' : `  ${(s.mean / base).toFixed(1)}× the empty page`));
  }
  for (const [i, p] of pages.entries()) {
    if (firsts[i].length === 0) continue;
    const s = stats(firsts[i]);
    console.log(`${p.name}: open, then scrolled to its first chart, drawn at ${s.mean.toFixed(1)} ms ± ${s.sd.toFixed(1)}` +
                `  [${s.min.toFixed(1)} … ${s.max.toFixed(1)}]`);
  }
  // The claim: a report opens in under 2 s. Reaching the first chart is reported beside it.
  for (const [i, p] of pages.entries()) {
    if (i === 0) continue;
    const open = stats(times[i]).mean;
    const first = firsts[i].length ? stats(firsts[i]).mean : null;
    console.log(`${p.name}: opens in ${open < 2000 ? 'under' : 'OVER'} 2 s (mean ${open.toFixed(0)} ms)` +
                (first === null ? '' : `; first chart drawn ${first < 2000 ? 'under' : 'over'} 2 s (mean ${first.toFixed(0)} ms)`));
  }
}

main().catch((e) => { console.error(`report_load: ${e.stack || e}`); process.exit(1); });
