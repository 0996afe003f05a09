import { BILLING_JS } from './html-billing.js';

/**
 * The style and script of report.html (writers/html.ts). The script reads the page's JSON blocks and builds
 * every element with createElement and text nodes: no string of the report's is ever parsed as markup.
 * Plain modern JavaScript (no template literals, so it can live in String.raw), for any current browser.
 */

export const PAGE_CSS = String.raw`
:root { --good: #d4edd4; --good-ink: #1b5e20; --notice: #fff1b8; --notice-ink: #7a5a00; --bad: #ffd6d6; --bad-ink: #a01818;
  --muted: #e6e6e6; --muted-ink: #555; --line: #d0d0d0; --bg: #fff; --ink: #1d1d1d; --soft: #f6f6f6; --accent: #2457c5; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
header.top { padding: 12px 16px 4px; }
h1 { font-size: 18px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 18px 16px 8px; }
.facts { color: #555; margin: 0; }
.facts span + span::before { content: " · "; }
.warn-line { color: var(--bad-ink); font-weight: 600; }
.counts { display: flex; flex-wrap: wrap; gap: 6px; margin: 8px 0 0; }
.toolbar { position: sticky; top: 0; z-index: 30; background: var(--bg); border-bottom: 1px solid var(--line); padding: 8px 16px; display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.toolbar input[type=search], .toolbar select { font: inherit; padding: 3px 6px; border: 1px solid #aaa; border-radius: 4px; }
.toolbar input[type=search] { width: 18em; }
.chip { display: inline-flex; align-items: center; gap: 4px; padding: 1px 8px 1px 4px; border-radius: 12px; border: 1px solid var(--line); font-size: 13px; cursor: pointer; user-select: none; }
.chip input { margin: 0; }
.chip.off { opacity: .45; }
.shown { color: #555; font-size: 13px; margin-left: auto; }
.t-good { background: var(--good); color: var(--good-ink); }
.t-notice { background: var(--notice); color: var(--notice-ink); }
.t-bad { background: var(--bad); color: var(--bad-ink); }
.t-muted { background: var(--muted); color: var(--muted-ink); }
.wrap { overflow: auto; max-height: calc(100vh - 60px); margin: 0 16px; border: 1px solid var(--line); }
table.matrix { border-collapse: separate; border-spacing: 0; }
table.matrix th, table.matrix td { border-right: 1px solid var(--line); border-bottom: 1px solid var(--line); }
table.matrix thead th { position: sticky; top: 0; z-index: 10; background: var(--soft); vertical-align: bottom; padding: 4px 2px; }
table.matrix thead th.model span { writing-mode: vertical-rl; transform: rotate(180deg); display: inline-block; max-height: 11em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-weight: 500; font-size: 12px; }
table.matrix th.corner { left: 0; z-index: 20; text-align: left; min-width: 16em; }
table.matrix th.probe { position: sticky; left: 0; z-index: 5; background: var(--bg); text-align: left; font-weight: normal; padding: 2px 8px; white-space: nowrap; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
table.matrix tr.area th { position: sticky; left: 0; z-index: 5; background: var(--soft); text-align: left; padding: 4px 8px; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
table.matrix td.cell { width: 26px; min-width: 26px; height: 22px; text-align: center; font: 600 12px ui-monospace, monospace; cursor: pointer; padding: 0; }
table.matrix td.cell:hover, table.matrix td.cell.open { outline: 2px solid var(--accent); outline-offset: -2px; }
table.matrix td.off { background: var(--bg); color: transparent; cursor: default; }
td.cell.c-regression { box-shadow: inset 0 0 0 2px var(--bad-ink); }
td.cell.c-improvement { box-shadow: inset 0 0 0 2px var(--good-ink); }
td.cell.c-new { box-shadow: inset 0 0 0 1px #777; }
table.plain { border-collapse: collapse; margin: 0 16px; }
table.plain th, table.plain td { border-bottom: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
table.plain td.cell { cursor: pointer; font-weight: 600; }
.badge { display: inline-block; padding: 0 6px; border-radius: 3px; font-weight: 600; }
.legend { margin: 8px 16px 24px; display: flex; flex-wrap: wrap; gap: 10px; font-size: 13px; }
.legend .badge { min-width: 20px; text-align: center; }
.empty { margin: 8px 16px; color: #555; }
aside.panel { position: fixed; top: 0; right: 0; bottom: 0; width: min(760px, 100vw); background: var(--bg); border-left: 1px solid #999; box-shadow: -6px 0 18px rgba(0,0,0,.15); z-index: 50; overflow: auto; padding: 12px 16px 40px; }
aside.panel[hidden] { display: none; }
aside.panel h2 { margin: 0 0 6px; font-size: 16px; word-break: break-all; }
aside.panel .close { position: sticky; top: 0; float: right; font: inherit; padding: 2px 10px; }
aside.panel dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 12px; margin: 8px 0; }
aside.panel dt { color: #555; }
aside.panel dd { margin: 0; white-space: pre-wrap; word-break: break-word; }
.findings li { margin: 2px 0; }
.exchange { border: 1px solid var(--line); border-radius: 4px; margin: 10px 0; padding: 6px 10px; }
.exchange h3 { font-size: 13px; margin: 2px 0 6px; font-family: ui-monospace, monospace; word-break: break-all; }
.exchange summary { cursor: pointer; font-weight: 600; margin: 4px 0; }
pre { background: var(--soft); padding: 6px 8px; margin: 4px 0; overflow: auto; max-height: 28em; white-space: pre-wrap; word-break: break-all; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
table.headers, table.events { border-collapse: collapse; font: 12px ui-monospace, monospace; }
table.headers td, table.events td, table.events th { padding: 1px 6px; border-bottom: 1px solid #eee; vertical-align: top; text-align: left; }
table.events td.data { word-break: break-all; }
.cuts { color: var(--notice-ink); font-size: 12px; }
.copy { font: inherit; font-size: 12px; padding: 1px 8px; }
svg { display: block; }
svg .tick { stroke: var(--accent); stroke-width: 1; }
svg .dot { fill: var(--accent); fill-opacity: .6; }
svg .bar { fill: var(--accent); }
svg .axis { stroke: #999; stroke-width: 1; }
`;

export const PAGE_JS = String.raw`
${BILLING_JS}
(function () {
  'use strict';
  function data(id) { return JSON.parse(document.getElementById(id).textContent); }
  var R = data('report-data');
  var X = data('exchanges-data');
  var T = data('timings-data');
  var LETTER = { honoured: 'H', accepted: 'A', ignored: 'I', rejected: 'R', pass: 'P', warn: 'W', fail: 'F', inconclusive: '?', error: 'E' };
  var ORDER = ['fail', 'error', 'rejected', 'ignored', 'warn', 'inconclusive', 'accepted', 'honoured', 'pass'];
  var SVG = 'http://www.w3.org/2000/svg';

  function h(tag, props, kids) {
    var n = document.createElement(tag);
    set(n, props);
    add(n, kids);
    return n;
  }
  function s(tag, attrs) {
    var n = document.createElementNS(SVG, tag);
    for (var k in attrs) n.setAttribute(k, String(attrs[k]));
    return n;
  }
  function set(n, props) {
    if (!props) return;
    for (var k in props) {
      var v = props[k];
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') n.textContent = String(v);
      else if (k === 'cls') n.className = v;
      else if (k.slice(0, 2) === 'on') n.addEventListener(k.slice(2), v);
      else n.setAttribute(k, v === true ? '' : String(v));
    }
  }
  function add(n, kids) {
    if (!kids) return;
    for (var i = 0; i < kids.length; i++) {
      var c = kids[i];
      if (c === null || c === undefined || c === false) continue;
      n.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
    }
  }
  function tone(v) { return 't-' + (R.tones[v] || 'muted'); }
  function verdictText(r) { return r.verdict === 'error' && r.cause ? 'error: ' + r.cause : r.verdict; }
  function badge(r) { return h('span', { cls: 'badge ' + tone(r.verdict), text: verdictText(r) }); }
  function ms(x) { return x === undefined || x === null ? '' : (x < 10 ? Math.round(x * 10) / 10 : Math.round(x)) + ' ms'; }

  // ---- the cells ----
  var probes = R.probes.filter(function (p) { return p.scope !== 'target'; });
  var targetProbes = R.probes.filter(function (p) { return p.scope === 'target'; });
  var probeById = new Map(R.probes.map(function (p) { return [p.id, p]; }));
  var models = R.models.filter(function (m) { return m.id !== R.endpoint; });
  var byKey = new Map();
  R.results.forEach(function (r) { byKey.set(r.model + '\u0000' + r.probe, r); });
  function cellOf(model, probe) {
    var row = model.notRun;
    if (!row) return byKey.get(model.id + '\u0000' + probe.id);
    return { model: model.id, probe: probe.id, kind: probe.kind, verdict: row.verdict, cause: row.cause, observed: row.observed,
      evidence: row.evidence, findings: [], status: row.status, comparison: row.comparison, repro: row.repro, row: true };
  }
  var searchText = new WeakMap();
  function textOf(r) {
    var t = searchText.get(r);
    if (t === undefined) {
      var p = probeById.get(r.probe);
      t = [r.model, r.probe, verdictText(r), r.observed, r.message || '', p ? p.requirement : '', p ? p.area : '']
        .concat((r.findings || []).map(function (f) { return f.code + ' ' + f.message; })).join('\n').toLowerCase();
      searchText.set(r, t);
    }
    return t;
  }

  // ---- filters ----
  var state = { q: '', area: '', model: '', verdicts: new Set(ORDER) };
  function shows(r) {
    if (!r) return false;
    if (!state.verdicts.has(r.verdict)) return false;
    if (state.area && (probeById.get(r.probe) || {}).area !== state.area && !r.row) return false;
    if (state.q && textOf(r).indexOf(state.q) < 0) return false;
    return true;
  }
  function modelShown(m) { return !state.model || m.id.toLowerCase().indexOf(state.model) >= 0; }

  var counts = {};
  R.results.forEach(function (r) { if (r.model !== R.endpoint) counts[r.verdict] = (counts[r.verdict] || 0) + 1; });
  models.forEach(function (m) { if (m.notRun) counts[m.notRun.verdict] = (counts[m.notRun.verdict] || 0) + probes.length; });
  R.results.forEach(function (r) { if (r.model === R.endpoint) counts[r.verdict] = (counts[r.verdict] || 0) + 1; });

  // ---- the page ----
  var app = document.getElementById('app');
  var facts = [R.target.baseUrl, 'chatprobe ' + R.tool.version, 'started ' + R.startedAt, Math.round(R.durationMs / 100) / 10 + ' s',
    R.calls + ' calls', (R.pageCut ? R.pageCut.models : models.length) + ' model(s) × ' + probes.length + ' probe(s)' + (R.probes.length > probes.length ? ' + ' + (R.probes.length - probes.length) + ' endpoint probe(s)' : '')];
  if (R.baseline) facts.push('baseline ' + R.baseline.path);
  var summary = R.summary;
  app.appendChild(h('header', { cls: 'top' }, [
    h('h1', { text: 'chatprobe report' }),
    h('p', { cls: 'facts' }, facts.map(function (f) { return h('span', { text: f }); })),
    R.interrupted ? h('p', { cls: 'warn-line', text: 'This run was interrupted: cells not reached are reported as not run.' }) : null,
    R.maxDurationReached ? h('p', { cls: 'warn-line', text: 'This run stopped at --max-duration: cells not reached are errors with cause "deadline".' }) : null,
    R.pageCut && R.pageCut.shownModels < R.pageCut.models ? h('p', { cls: 'warn-line', id: 'page-cut', text: 'This page shows the first ' + R.pageCut.shownModels + ' of ' + R.pageCut.models +
      ' models (a page of every cell would be too large for a browser); report.json, junit.xml and exchanges.har beside it have every model. The counts below are those of the whole run.' }) : null,
    R.pageCut && R.pageCut.exchangesLeft > 0 ? h('p', { cls: 'facts', id: 'exchanges-cut', text: R.pageCut.exchangesLeft + ' recorded exchange(s) are not on this page' +
      (R.pageCut.exchangesWhy ? ' (past ' + R.pageCut.exchangesWhy + ')' : '') + ': exchanges.har has them all.' }) : null,
    summary ? h('p', { cls: 'facts' }, [h('span', { text: 'outcomes: ' + Object.keys(summary.outcomes).map(function (k) { return summary.outcomes[k] + ' ' + k; }).join(', ') }),
      h('span', { text: summary.regressions + ' regression(s)' }), h('span', { text: 'exit code ' + summary.exitCode })]) : null,
  ]));

  var search = h('input', { type: 'search', id: 'search', placeholder: 'Search probes, models, findings…', 'aria-label': 'Search' });
  var areaSel = h('select', { id: 'area', 'aria-label': 'Area' }, [h('option', { value: '', text: 'every area' })]);
  Array.from(new Set(R.probes.map(function (p) { return p.area; }))).forEach(function (a) { areaSel.appendChild(h('option', { value: a, text: a })); });
  var modelIn = h('input', { type: 'search', id: 'model', placeholder: 'Model…', 'aria-label': 'Model filter' });
  var chips = ORDER.filter(function (v) { return counts[v]; }).map(function (v) {
    var box = h('input', { type: 'checkbox', checked: true, 'data-verdict': v });
    var chip = h('label', { cls: 'chip', title: v }, [box, h('span', { cls: 'badge ' + tone(v), text: LETTER[v] }), v + ' ' + counts[v]]);
    box.addEventListener('change', function () {
      if (box.checked) state.verdicts.add(v); else state.verdicts.delete(v);
      chip.classList.toggle('off', !box.checked);
      render();
    });
    return chip;
  });
  var shown = h('span', { cls: 'shown', id: 'shown' });
  var toolbar = h('div', { cls: 'toolbar' }, [search, areaSel, modelIn].concat(chips, [shown]));
  app.appendChild(toolbar);
  search.addEventListener('input', function () { state.q = search.value.trim().toLowerCase(); render(); });
  modelIn.addEventListener('input', function () { state.model = modelIn.value.trim().toLowerCase(); render(); });
  areaSel.addEventListener('change', function () { state.area = areaSel.value; render(); });

  var endpointBox = h('section', { id: 'endpoint' });
  var matrixBox = h('section', { id: 'matrix-section' }, [h('h2', { text: 'Models × probes' })]);
  var wrap = h('div', { cls: 'wrap' });
  matrixBox.appendChild(wrap);
  app.appendChild(endpointBox);
  app.appendChild(matrixBox);
  app.appendChild(h('div', { cls: 'legend' }, ORDER.map(function (v) { return h('span', null, [h('span', { cls: 'badge ' + tone(v), text: LETTER[v] }), ' ' + v]); })
    .concat([h('span', { text: 'outlined: a regression (red) or improvement (green) against the baseline' })])));

  var cellIndex = [];
  function cellTd(r, m, p) {
    var i = cellIndex.length;
    cellIndex.push(r);
    var cls = 'cell ' + tone(r.verdict) + (r.comparison ? ' c-' + r.comparison : '');
    return h('td', { cls: cls, 'data-i': i, title: m.id + ' · ' + p.id + ': ' + verdictText(r) + (r.comparison && r.comparison !== 'expected' ? ' (' + r.comparison + ')' : ''), text: LETTER[r.verdict] || '·' });
  }

  function renderEndpoint() {
    endpointBox.textContent = '';
    var rows = targetProbes.map(function (p) { return { p: p, r: byKey.get(R.endpoint + '\u0000' + p.id) }; }).filter(function (x) { return shows(x.r); });
    if (targetProbes.length === 0) return 0;
    endpointBox.appendChild(h('h2', { text: 'Endpoint checks' }));
    if (rows.length === 0) { endpointBox.appendChild(h('p', { cls: 'empty', text: 'No endpoint check matches the filters.' })); return 0; }
    var m = { id: R.endpoint };
    endpointBox.appendChild(h('table', { cls: 'plain', id: 'endpoint-table' }, [h('tbody', null, rows.map(function (x) {
      var td = cellTd(x.r, m, x.p);
      td.textContent = verdictText(x.r);
      return h('tr', null, [h('th', { text: x.p.id, title: x.p.requirement }), td, h('td', { text: x.r.observed })]);
    }))]));
    return rows.length;
  }

  function renderMatrix() {
    wrap.textContent = '';
    var cols = models.filter(modelShown);
    var rows = [];
    var used = new Set();
    probes.forEach(function (p) {
      if (state.area && p.area !== state.area) return;
      var cells = cols.map(function (m) { var r = cellOf(m, p); return shows(r) ? r : null; });
      if (cells.some(function (c) { return c; })) {
        rows.push({ p: p, cells: cells });
        cells.forEach(function (c, j) { if (c) used.add(j); });
      }
    });
    var keep = cols.map(function (_, j) { return used.has(j); });
    if (rows.length === 0) { wrap.appendChild(h('p', { cls: 'empty', text: 'No cell matches the filters.' })); return 0; }
    var head = h('tr', null, [h('th', { cls: 'corner', text: 'probe \\ model' })]);
    cols.forEach(function (m, j) {
      if (!keep[j]) return;
      head.appendChild(h('th', { cls: 'model', title: m.id + (m.notRun ? ': ' + m.notRun.observed : '') }, [h('span', { text: m.id })]));
    });
    var body = h('tbody');
    var area = null;
    var n = 0;
    var width = keep.filter(Boolean).length + 1;
    rows.forEach(function (row) {
      if (row.p.area !== area) {
        area = row.p.area;
        body.appendChild(h('tr', { cls: 'area' }, [h('th', { colspan: width, text: area })]));
      }
      var tr = h('tr', { 'data-probe': row.p.id }, [h('th', { cls: 'probe', title: row.p.requirement, text: row.p.id })]);
      row.cells.forEach(function (r, j) {
        if (!keep[j]) return;
        if (r) { tr.appendChild(cellTd(r, cols[j], row.p)); n++; } else tr.appendChild(h('td', { cls: 'off' }));
      });
      body.appendChild(tr);
    });
    wrap.appendChild(h('table', { cls: 'matrix', id: 'matrix' }, [h('thead', null, [head]), body]));
    pinHead();
    return n;
  }

  // The header row sticks to the top of the matrix's own box as the matrix scrolls; when the page scrolls
  // that box's top under the toolbar, the row is moved down with it, so the model names stay in view
  // beside the cells (sticky alone keeps them inside the box, off the screen).
  function pinHead() {
    var t = document.getElementById('matrix');
    if (!t || !t.tHead) return;
    var under = toolbar.getBoundingClientRect().bottom - wrap.getBoundingClientRect().top;
    var room = wrap.clientHeight - t.tHead.offsetHeight;
    var shift = Math.max(0, Math.min(under, room));
    var cells = t.tHead.rows[0] ? t.tHead.rows[0].cells : [];
    for (var i = 0; i < cells.length; i++) cells[i].style.transform = shift > 0 ? 'translateY(' + shift + 'px)' : '';
  }
  window.addEventListener('scroll', pinHead, { passive: true });
  window.addEventListener('resize', pinHead);

  var total = probes.length * models.length + targetProbes.length;
  // Each change redraws at once (50 models × 80 probes take a few tens of ms): what the page shows always
  // follows its filters.
  function render() {
    cellIndex = [];
    var n = renderEndpoint() + renderMatrix();
    shown.textContent = 'showing ' + n + ' of ' + total + ' cells';
  }

  // ---- a cell's evidence ----
  var panel = h('aside', { cls: 'panel', id: 'panel', hidden: true, role: 'dialog', 'aria-label': 'Cell evidence' });
  document.body.appendChild(panel);
  function pretty(text) {
    if (text === undefined || text === null) return '';
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }
  function copyButton(pre) {
    return h('button', { cls: 'copy', type: 'button', text: 'copy', onclick: function () {
      var text = pre.textContent;
      var done = function () { pre.dataset.copied = '1'; };
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, function () { selectAll(pre); });
      else selectAll(pre);
    } });
  }
  function selectAll(node) {
    var range = document.createRange();
    range.selectNodeContents(node);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  function headersTable(list) {
    return h('table', { cls: 'headers' }, [h('tbody', null, list.map(function (kv) { return h('tr', null, [h('td', { text: kv[0] }), h('td', { text: kv[1] })]); }))]);
  }
  function timeline(events) {
    var width = 600, last = events.length ? Math.max(1, events[events.length - 1][0]) : 1;
    var svg = s('svg', { width: width, height: 26, viewBox: '0 0 ' + width + ' 26', role: 'img', 'aria-label': 'event arrival times' });
    svg.appendChild(s('line', { x1: 4, y1: 22, x2: width - 4, y2: 22, class: 'axis' }));
    events.forEach(function (ev) {
      var x = 4 + (ev[0] / last) * (width - 8);
      svg.appendChild(s('line', { x1: x, y1: 4, x2: x, y2: 22, class: 'tick' }));
    });
    var label = s('title', {});
    label.textContent = events.length + ' events from ' + ms(events.length ? events[0][0] : 0) + ' to ' + ms(last);
    svg.appendChild(label);
    return svg;
  }
  function exchangeView(id) {
    var e = Object.prototype.hasOwnProperty.call(X, id) ? X[id] : null;
    if (!e) return h('p', { cls: 'empty', text: id + ': ' + (!R.exchangesRecorded ? 'exchanges were not recorded in this report'
      : R.pageCut && R.pageCut.exchangesLeft > 0 ? 'not on this page (see above): look it up in exchanges.har' : 'not in exchanges.har') });
    var answer = e.status ? 'HTTP ' + e.status : (e.statusText || e.error || 'no answer');
    var path = e.url.replace(/^[a-z]+:\/\/[^/]*/i, '');
    var head = h('h3', { text: id + ' · ' + e.method + ' ' + path + ' → ' + answer + ' · ' + ms(e.ms) + (e.wait !== undefined && e.events ? ' · first byte ' + ms(e.wait) : '') });
    var kids = [head];
    if (e.probe) kids.push(h('div', { cls: 'facts', text: 'sent for ' + e.probe + (e.model ? ' · model ' + e.model : '') + ' · ' + e.url }));
    if (e.cuts && e.cuts.length) kids.push(h('ul', { cls: 'cuts' }, e.cuts.map(function (c) { return h('li', { text: c }); })));
    var req = [h('summary', { text: 'Request' }), headersTable(e.requestHeaders)];
    if (e.request !== undefined) req.push(h('pre', { cls: 'body request', text: pretty(e.request) }));
    kids.push(h('details', { open: true, cls: 'request' }, req));
    var res = [h('summary', { text: 'Response' + (e.events ? ' · stream of ' + e.events.length + ' event(s)' : '') }), headersTable(e.responseHeaders)];
    if (e.events) {
      res.push(timeline(e.events));
      var prev = null;
      res.push(h('table', { cls: 'events' }, [h('thead', null, [h('tr', null, [h('th', { text: 'at' }), h('th', { text: 'gap' }), h('th', { text: 'data' })])]),
        h('tbody', null, e.events.map(function (ev) {
          var gap = prev === null ? '' : ms(ev[0] - prev);
          prev = ev[0];
          return h('tr', null, [h('td', { text: ms(ev[0]) }), h('td', { text: gap }), h('td', { cls: 'data', text: ev[1] })]);
        }))]));
    } else {
      res.push(h('pre', { cls: 'body response', text: pretty(e.response) }));
    }
    if (e.error) res.push(h('p', { cls: 'cuts', text: 'no complete answer: ' + e.error }));
    kids.push(h('details', { open: true, cls: 'response' }, res));
    if (e.curl) {
      var pre = h('pre', { cls: 'curl', text: e.curl });
      kids.push(h('details', { cls: 'curl' }, [h('summary', { text: 'curl (the key as the variable it was read from)' }), pre, copyButton(pre)]));
    }
    return h('section', { cls: 'exchange', 'data-call': id }, kids);
  }
  var openTd = null;
  function openCell(r, td) {
    if (openTd) openTd.classList.remove('open');
    openTd = td || null;
    if (openTd) openTd.classList.add('open');
    panel.textContent = '';
    var p = probeById.get(r.probe) || { requirement: '', kind: r.kind, area: '' };
    var dl = h('dl');
    function row(k, v) { if (v !== undefined && v !== null && v !== '') add(dl, [h('dt', { text: k }), h('dd', { text: String(v) })]); }
    row('requirement', p.requirement);
    row('kind', p.kind + (p.area ? ' · ' + p.area : ''));
    row('seen', r.observed);
    if (r.status !== undefined || r.message) row('server said', (r.status !== undefined ? 'HTTP ' + r.status + ' ' : '') + (r.message || ''));
    if (r.expected) row('baseline expects', r.expected.join(' or '));
    if (r.comparison) row('against the baseline', r.comparison);
    if (r.row) row('row', 'this model was not probed: one result stands for all its probes');
    var kids = [h('button', { cls: 'close', type: 'button', text: 'close', onclick: closePanel }),
      h('h2', { text: r.model + ' · ' + r.probe }), h('p', null, [badge(r), r.notRun ? ' (not run to its end)' : '']), dl];
    if (r.findings && r.findings.length) {
      kids.push(h('h3', { text: 'Findings' }));
      kids.push(h('ul', { cls: 'findings' }, r.findings.map(function (f) { return h('li', null, [h('span', { cls: 'badge ' + (f.severity === 'fail' ? 't-bad' : f.severity === 'warn' ? 't-notice' : 't-muted'), text: f.severity }), ' ' + f.code + ': ' + f.message]); })));
    }
    if (r.repro) {
      var pre = h('pre', { cls: 'repro', text: r.repro });
      kids.push(h('h3', { text: 'Reproduce, in the reports folder' }), pre, copyButton(pre));
    }
    kids.push(h('h3', { text: 'Evidence (' + r.evidence.length + ' call' + (r.evidence.length === 1 ? '' : 's') + ')' }));
    if (r.evidence.length === 0) kids.push(h('p', { cls: 'empty', text: 'No call is evidence for this cell.' }));
    r.evidence.forEach(function (id) { kids.push(exchangeView(id)); });
    add(panel, kids);
    panel.hidden = false;
    panel.scrollTop = 0;
    history.replaceState(null, '', '#' + new URLSearchParams({ model: r.model, probe: r.probe }).toString());
  }
  function closePanel() {
    panel.hidden = true;
    if (openTd) openTd.classList.remove('open');
    openTd = null;
    history.replaceState(null, '', location.pathname + location.search);
  }
  app.addEventListener('click', function (ev) {
    var td = ev.target.closest ? ev.target.closest('td.cell') : null;
    if (!td || td.classList.contains('off')) return;
    var r = cellIndex[Number(td.getAttribute('data-i'))];
    if (r) openCell(r, td);
  });
  document.addEventListener('keydown', function (ev) { if (ev.key === 'Escape' && !panel.hidden) closePanel(); });

  // ---- per-model stream timings ----
  function timingsSection() {
    var names = models.map(function (m) { return m.id; }).filter(function (id) { return Object.prototype.hasOwnProperty.call(T, id); });
    var box = h('section', { id: 'timings' }, [h('h2', { text: 'Stream timings' })]);
    if (names.length === 0) { box.appendChild(h('p', { cls: 'empty', text: 'No stream was recorded.' })); return box; }
    var maxTtft = 1;
    names.forEach(function (id) { T[id].ttft.forEach(function (t) { if (t > maxTtft) maxTtft = t; }); });
    var edges = R.gapBuckets;
    var bucketName = function (i) { return i === 0 ? '< ' + edges[0] + ' ms' : i === edges.length ? '≥ ' + edges[edges.length - 1] + ' ms' : edges[i - 1] + '–' + edges[i] + ' ms'; };
    box.appendChild(h('p', { cls: 'empty', text: 'First event: each stream’s time to its first event, on one scale (0 to ' + Math.round(maxTtft) + ' ms) for every model. Gaps: how the time between events spreads over buckets from ' + bucketName(0) + ' to ' + bucketName(edges.length) + '.' }));
    var rows = names.map(function (id) {
      var t = T[id];
      var m = models.find(function (x) { return x.id === id; }) || {};
      var metrics = m.metrics || {};
      var strip = s('svg', { width: 180, height: 18, class: 'ttft', role: 'img', 'aria-label': 'time to first event' });
      strip.appendChild(s('line', { x1: 2, y1: 9, x2: 178, y2: 9, class: 'axis' }));
      t.ttft.forEach(function (v) { strip.appendChild(s('circle', { cx: 2 + (v / maxTtft) * 176, cy: 9, r: 3, class: 'dot' })); });
      var st = s('title', {}); st.textContent = t.ttft.length + ' stream(s): ' + Math.min.apply(null, t.ttft) + '–' + Math.max.apply(null, t.ttft) + ' ms to the first event';
      strip.appendChild(st);
      var top = Math.max.apply(null, t.gaps.concat([1]));
      var hist = s('svg', { width: t.gaps.length * 12, height: 20, class: 'gaps', role: 'img', 'aria-label': 'chunk gaps' });
      t.gaps.forEach(function (c, i) {
        var bh = c === 0 ? 0 : Math.max(1, (c / top) * 18);
        var bar = s('rect', { x: i * 12 + 1, y: 19 - bh, width: 10, height: bh, class: 'bar' });
        var bt = s('title', {}); bt.textContent = bucketName(i) + ': ' + c;
        bar.appendChild(bt);
        hist.appendChild(bar);
      });
      return h('tr', null, [h('th', { text: id }), h('td', { text: String(t.streams) }), h('td', { text: ms(metrics.ttftMsMedian) }), h('td', { text: ms(metrics.gapMsMedian) }),
        h('td', { text: metrics.chunksPerSecondMedian === undefined ? '' : String(Math.round(metrics.chunksPerSecondMedian)) }), h('td', null, [strip]), h('td', null, [hist])]);
    });
    box.appendChild(h('table', { cls: 'plain' }, [h('thead', null, [h('tr', null, ['model', 'streams', 'first token (median)', 'gap (median)', 'chunks/s', 'first event', 'gaps'].map(function (x) { return h('th', { text: x }); }))]), h('tbody', null, rows)]));
    return box;
  }
  app.appendChild(timingsSection());
  var billing = billingSection(h, R);
  if (billing) app.appendChild(billing);

  render();
  // A link to a cell (#model=…&probe=…) opens its evidence.
  if (location.hash.length > 1) {
    var q = new URLSearchParams(location.hash.slice(1));
    var mm = models.find(function (m) { return m.id === q.get('model'); });
    var pp = probeById.get(q.get('probe') || '');
    var r = q.get('model') === R.endpoint && pp ? byKey.get(R.endpoint + '\u0000' + pp.id) : mm && pp ? cellOf(mm, pp) : null;
    if (r) openCell(r, null);
  }
})();
`;
