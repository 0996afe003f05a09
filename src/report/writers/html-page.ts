import { BILLING_JS } from './html-billing.js';
import { IDENTITY_JS } from './html-identity.js';

/**
 * The style and script of report.html (writers/html.ts). The script reads the page's JSON blocks and builds
 * every element with createElement and text nodes: no string of the report's is ever parsed as markup.
 * Plain modern JavaScript (no template literals, so it can live in String.raw), for any current browser.
 *
 * The page reads from the top: the run's facts, each model's totals (failures first), what failed grouped
 * by probe, then the matrix under its filters, a page of models at a time, then the stream timings.
 */

export const PAGE_CSS = String.raw`
:root { --good: #d4edd4; --good-ink: #1b5e20; --notice: #fff1b8; --notice-ink: #7a5a00; --bad: #ffd6d6; --bad-ink: #a01818;
  --muted: #e6e6e6; --muted-ink: #555; --line: #d0d0d0; --bg: #fff; --ink: #1d1d1d; --soft: #f6f6f6; --accent: #2457c5; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); width: max-content; min-width: 100%; }
.pin { position: sticky; left: 0; width: var(--view, 100vw); }
/* A pinned block's margin would put it past the window's edge: its room is padding. */
h2.pin, p.pin, .legend.pin { margin-left: 0; margin-right: 0; padding-left: 16px; padding-right: 16px; }
header.top { padding: 12px 16px 4px; }
h1 { font-size: 18px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 18px 16px 8px; }
details > summary { cursor: pointer; margin: 18px 16px 8px; }
details > summary h2 { display: inline; margin: 0; }
.facts { color: #555; margin: 0; }
.facts span + span::before { content: " · "; }
.warn-line { color: var(--bad-ink); font-weight: 600; }
.name { overflow-wrap: anywhere; word-break: normal; }
button.link { font: inherit; color: var(--accent); background: none; border: 0; padding: 0; cursor: pointer; text-align: left; }
button.link:hover { text-decoration: underline; }
button.more { font: inherit; font-size: 13px; margin: 4px 16px; padding: 1px 10px; }
.toolbar { position: sticky; top: 0; z-index: 30; background: var(--bg); border-bottom: 1px solid var(--line); padding: 8px 16px; display: flex; flex-wrap: wrap; gap: 6px 8px; align-items: center; }
.toolbar input[type=search], .toolbar select { font: inherit; font-size: 13px; padding: 2px 6px; border: 1px solid #aaa; border-radius: 4px; }
.toolbar input[type=search] { width: 14em; }
.toolbar #model { width: 11em; }
.chip { display: inline-flex; align-items: center; gap: 4px; padding: 0 8px 0 4px; border-radius: 12px; border: 1px solid var(--line); font-size: 12px; cursor: pointer; user-select: none; }
.chip input { margin: 0; }
.chip.off { opacity: .45; }
.fp-rep { display: inline-block; margin: 1px 2px; padding: 0 6px; border-radius: 10px; font-size: 12px; white-space: nowrap; }
.shown { color: #555; font-size: 13px; margin-left: auto; }
.t-good { background: var(--good); color: var(--good-ink); }
.t-notice { background: var(--notice); color: var(--notice-ink); }
.t-bad { background: var(--bad); color: var(--bad-ink); }
.t-muted { background: var(--muted); color: var(--muted-ink); }
#summary-table { max-width: calc(var(--view, 100vw) - 32px); }
#summary-table th.model-name { font-weight: 500; min-width: 12em; max-width: 30em; }
#summary-table td.num, #summary-table th.num { text-align: right; font-variant-numeric: tabular-nums; }
#summary-table td.bad { color: var(--bad-ink); font-weight: 600; }
#summary-table td.not-probed { color: var(--bad-ink); }
.score { display: inline-flex; align-items: center; gap: 6px; white-space: nowrap; }
.score .bar { display: inline-flex; width: 120px; height: 10px; border-radius: 2px; overflow: hidden; background: var(--muted); }
.score .pct { font-variant-numeric: tabular-nums; min-width: 3.2em; text-align: right; }
.seg-good { background: #43a047; } .seg-notice { background: #f2c230; } .seg-bad { background: #d84343; } .seg-muted { background: #b5b5b5; }
#failures .group { margin: 4px 16px 10px; }
#failures .ghead { display: flex; flex-wrap: wrap; gap: 2px 10px; align-items: baseline; }
#failures .ghead code { font: 600 13px ui-monospace, SFMono-Regular, Menlo, monospace; }
#failures .gcount { color: #555; font-size: 13px; }
#failures .gcount.bad { color: var(--bad-ink); font-weight: 600; }
#failures .greq { color: #555; font-size: 12px; }
#failures .chips { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 3px; }
#failures .chips button.more { margin: 0; }
.fchip { display: inline-flex; align-items: baseline; gap: 4px; font: inherit; font-size: 12px; text-align: left; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 1px 6px 1px 2px; cursor: pointer; max-width: 100%; }
.fchip.reg { border: 2px solid var(--bad-ink); }
.fchip:hover { border-color: var(--accent); }
.wrap { margin: 0 16px; }
.pager { display: flex; gap: 10px; align-items: center; padding: 4px 16px; font-size: 13px; }
.pager[hidden] { display: none; }
.pager button { font: inherit; padding: 1px 10px; }
table.matrix { border-collapse: separate; border-spacing: 0; border-top: 1px solid var(--line); border-left: 1px solid var(--line); }
table.matrix th, table.matrix td { border-right: 1px solid var(--line); border-bottom: 1px solid var(--line); }
table.matrix thead th { position: sticky; top: var(--bar, 0px); z-index: 10; background: var(--soft); vertical-align: bottom; padding: 4px 2px; }
table.matrix.down thead tr.names th { top: calc(var(--bar, 0px) + var(--head1, 0px)); }
table.matrix th.corner { left: 0; z-index: 20; text-align: left; vertical-align: bottom; padding: 4px 8px; font-size: 12px; }
table.matrix.across th.corner { min-width: 16em; }
table.matrix.across thead th.model { width: 8.5em; min-width: 8.5em; max-width: 8.5em; text-align: left; font-weight: 500; font-size: 12px; padding: 4px 6px; line-height: 1.3; }
table.matrix.across th.probe { position: sticky; left: 0; z-index: 5; background: var(--bg); text-align: left; font-weight: normal; padding: 2px 8px; white-space: nowrap; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
table.matrix.across tr.area th { background: var(--soft); text-align: left; padding: 4px 8px; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
table.matrix.across tr.area th span { position: sticky; left: 8px; }
table.matrix.down th.corner { min-width: 12em; }
table.matrix.down thead th.area { text-align: left; font-size: 11px; text-transform: uppercase; letter-spacing: .04em; padding: 2px 4px; white-space: nowrap; overflow: hidden; }
table.matrix.down thead th.pcol { padding: 4px 0; text-align: center; }
table.matrix.down thead th.pcol span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; font: 11px ui-monospace, SFMono-Regular, Menlo, monospace; }
table.matrix.down th.first, table.matrix.down td.first, table.matrix.down thead th.area { border-left: 2px solid #999; }
table.matrix.down tbody th.model { position: sticky; left: 0; z-index: 5; background: var(--bg); text-align: left; font-weight: 500; font-size: 12px; padding: 2px 8px; line-height: 1.3; }
table.matrix.down tbody th.model span { display: block; min-width: 10em; max-width: 22em; }
table.matrix td.cell { width: 26px; min-width: 26px; height: 22px; text-align: center; font: 600 12px ui-monospace, monospace; cursor: pointer; padding: 0; }
table.matrix td.cell.word { width: auto; padding: 0 6px; font-weight: 500; text-align: left; white-space: nowrap; }
table.matrix td.cell:hover, table.matrix td.cell.open { outline: 2px solid var(--accent); outline-offset: -2px; }
table.matrix td.off { background: var(--bg); color: transparent; cursor: default; }
td.cell.c-regression { box-shadow: inset 0 0 0 2px var(--bad-ink); }
td.cell.c-improvement { box-shadow: inset 0 0 0 2px var(--good-ink); }
td.cell.c-new { box-shadow: inset 0 0 0 1px #777; }
table.plain { border-collapse: collapse; margin: 0 16px; }
table.plain th, table.plain td { border-bottom: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
table.plain td.cell { cursor: pointer; font-weight: 600; }
#timings table.plain tbody th { max-width: 22em; font-weight: 500; }
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

/**
 * What report.html and the comparison page (writers/compare-html.ts) share: the element builders, the
 * verdicts' letters and tones, and a cell's evidence with its recorded exchanges. Pasted at the top of
 * each page's script (inside its function), so both draw a cell's evidence alike.
 */
export const KIT_JS = String.raw`
  function data(id) { return JSON.parse(document.getElementById(id).textContent); }
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
  // A model id as text, with a line break allowed after each / - _ . or : (a <wbr>, which adds no
  // character: the text copied is the id), so a long id wraps between its parts.
  function nameSpan(id, cls) {
    var span = h('span', { cls: cls || 'name' });
    id.split(/(?<=[\/\-_.:])/).forEach(function (part, i) {
      if (i > 0) span.appendChild(document.createElement('wbr'));
      span.appendChild(document.createTextNode(part));
    });
    return span;
  }
  // The tone of each verdict, given by the page's data (report/style.ts VERDICT_TONE).
  var TONES = {};
  function tone(v) { return 't-' + (TONES[v] || 'muted'); }
  function verdictText(r) { return r.verdict === 'error' && r.cause ? 'error: ' + r.cause : r.verdict; }
  function badge(r) { return h('span', { cls: 'badge ' + tone(r.verdict), text: verdictText(r) }); }
  function ms(x) { return x === undefined || x === null ? '' : (x < 10 ? Math.round(x * 10) / 10 : Math.round(x)) + ' ms'; }
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
  // A run's recorded exchanges: { block: the id of its JSON block, read when first needed, recorded: whether
  // the run recorded them, left: what to say of one not on the page (some were left out), none: of one not recorded }.
  function exchangeView(store, id) {
    if (store.map === undefined) store.map = data(store.block);
    var e = Object.prototype.hasOwnProperty.call(store.map, id) ? store.map[id] : null;
    if (!e) return h('p', { cls: 'empty', text: id + ': ' + (!store.recorded ? store.none || 'exchanges were not recorded in this report'
      : store.left || 'not in exchanges.har') });
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
  // A cell's evidence, as the report's panel and the comparison page show it: its verdict, what was seen,
  // the findings, the command that reproduces it, and the exchanges that are its evidence (from \`store\`).
  function cellDetails(r, p, store) {
    var dl = h('dl');
    function row(k, v) { if (v !== undefined && v !== null && v !== '') add(dl, [h('dt', { text: k }), h('dd', { text: String(v) })]); }
    row('requirement', p.requirement);
    row('kind', p.kind + (p.area ? ' · ' + p.area : ''));
    row('seen', r.observed);
    if (r.status !== undefined || r.message) row('server said', (r.status !== undefined ? 'HTTP ' + r.status + ' ' : '') + (r.message || ''));
    if (r.expected) row('baseline expects', r.expected.join(' or '));
    if (r.comparison) row('against the baseline', r.comparison);
    if (r.row) row('row', 'this model was not probed: one result stands for all its probes');
    var kids = [h('p', null, [badge(r), r.notRun ? ' (not run to its end)' : '']), dl];
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
    r.evidence.forEach(function (id) { kids.push(exchangeView(store, id)); });
    return kids;
  }
`;

export const PAGE_JS =
  String.raw`
${BILLING_JS}
${IDENTITY_JS}
(function () {
  'use strict';` +
  KIT_JS +
  String.raw`
  var R = data('report-data');
  TONES = R.tones;
  // The recorded exchanges (most of a large page) are read when a cell's evidence is first opened.
  var STORE = { block: 'exchanges-data', recorded: R.exchangesRecorded, left: R.pageCut && R.pageCut.exchangesLeft > 0 ? 'not on this page (see above): look it up in exchanges.har' : undefined };
  var T = data('timings-data');
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
  // Models per page of the matrix: a page of 50 models × 80 probes is 4,000 cells, which a browser lays out
  // at once; 200 models on one page were 16,000.
  var PAGE = 50;
  var state = { q: '', area: '', model: '', exact: false, verdicts: new Set(ORDER), layout: 'auto', order: 'worst', page: 0 };
  function shows(r) {
    if (!r) return false;
    if (!state.verdicts.has(r.verdict)) return false;
    if (state.area && (probeById.get(r.probe) || {}).area !== state.area && !r.row) return false;
    if (state.q && textOf(r).indexOf(state.q) < 0) return false;
    return true;
  }
  // The model filter matches a part of an id, or exactly one id when it is one (a click in the table of
  // models: "vendor/model-1" alone, not "vendor/model-10" beside it).
  function modelShown(m) {
    if (!state.model) return true;
    var id = m.id.toLowerCase();
    return state.exact ? id === state.model : id.indexOf(state.model) >= 0;
  }

  var counts = {};
  R.results.forEach(function (r) { if (r.model !== R.endpoint) counts[r.verdict] = (counts[r.verdict] || 0) + 1; });
  models.forEach(function (m) { if (m.notRun) counts[m.notRun.verdict] = (counts[m.notRun.verdict] || 0) + probes.length; });
  R.results.forEach(function (r) { if (r.model === R.endpoint) counts[r.verdict] = (counts[r.verdict] || 0) + 1; });

  // ---- each model's totals ----
  // Counted by the writer (report/summary.ts modelTotals, as the console counts them), with each model's
  // place when they are ordered failures first.
  var worst = models.slice().sort(function (a, b) { return a.rank - b.rank; });
  var rank = new Map(worst.map(function (m, i) { return [m.id, i]; }));
  function ordered() { return state.order === 'worst' ? worst : models; }
  var probeIndex = new Map(R.probes.map(function (p, i) { return [p.id, i]; }));

  // ---- the page ----
  var app = document.getElementById('app');
  var facts = [R.target.baseUrl, 'chatprobe ' + R.tool.version, 'started ' + R.startedAt, Math.round(R.durationMs / 100) / 10 + ' s',
    R.calls + ' calls', (R.pageCut ? R.pageCut.models : models.length) + ' model(s) × ' + probes.length + ' probe(s)' + (R.probes.length > probes.length ? ' + ' + (R.probes.length - probes.length) + ' endpoint probe(s)' : '')];
  if (R.baseline) facts.push('baseline ' + R.baseline.path);
  var summary = R.summary;
  app.appendChild(h('header', { cls: 'top pin' }, [
    h('h1', { text: 'chatprobe report' }),
    h('p', { cls: 'facts' }, facts.map(function (f) { return h('span', { text: f }); })),
    R.interrupted ? h('p', { cls: 'warn-line', text: 'This run was interrupted: cells not reached are reported as not run.' }) : null,
    R.maxDurationReached ? h('p', { cls: 'warn-line', text: 'This run stopped at --max-duration: cells not reached are errors with cause "deadline".' }) : null,
    R.budgetReached ? h('p', { cls: 'warn-line', text: 'A spending cap was reached (' + R.budgetReached.map(function (b) { return '--' + b.cap.replace(/[A-Z]/g, function (c) { return '-' + c.toLowerCase(); }) + ' ' + b.limit + (b.models !== undefined ? ', by ' + b.models + ' model(s)' : ''); }).join('; ') + '): cells not reached are errors with cause "budget".' }) : null,
    R.pageCut && R.pageCut.shownModels < R.pageCut.models ? h('p', { cls: 'warn-line', id: 'page-cut', text: 'This page shows the first ' + R.pageCut.shownModels + ' of ' + R.pageCut.models +
      ' models (a page of every cell would be too large for a browser); report.json, junit.xml and exchanges.har beside it have every model. The counts below are those of the whole run.' }) : null,
    R.pageCut && R.pageCut.exchangesLeft > 0 ? h('p', { cls: 'facts', id: 'exchanges-cut', text: R.pageCut.exchangesLeft + ' recorded exchange(s) are not on this page' +
      (R.pageCut.exchangesWhy ? ' (past ' + R.pageCut.exchangesWhy + ')' : '') + ': exchanges.har has them all.' }) : null,
    summary ? h('p', { cls: 'facts' }, [h('span', { text: 'outcomes: ' + Object.keys(summary.outcomes).map(function (k) { return summary.outcomes[k] + ' ' + k; }).join(', ') }),
      h('span', { text: summary.regressions + ' regression(s)' }), h('span', { text: 'exit code ' + summary.exitCode })]) : null,
  ]));

  // ---- the models, failures first ----
  // The first SUMMARY_ROWS of a long list, the rest a click away: the failures below stay near the top.
  var SUMMARY_ROWS = 20;
  var TONE_WORDS = { good: 'honoured, accepted or passed', notice: 'ignored or warned', bad: 'rejected, failed or errored', muted: 'inconclusive' };
  function scoreBar(t) {
    var pct = t.cells ? Math.round((t.tones.good / t.cells) * 100) : 0;
    var said = ['good', 'notice', 'bad', 'muted'].filter(function (k) { return t.tones[k]; }).map(function (k) { return t.tones[k] + ' ' + TONE_WORDS[k]; }).join(', ');
    var bar = h('span', { cls: 'bar', role: 'img', 'aria-label': said });
    ['good', 'notice', 'bad', 'muted'].forEach(function (k) {
      if (!t.tones[k]) return;
      var seg = h('span', { cls: 'seg seg-' + k });
      seg.style.flexGrow = String(t.tones[k]);
      bar.appendChild(seg);
    });
    return h('span', { cls: 'score', title: pct + '% of the cells good: ' + said }, [bar, h('span', { cls: 'pct', text: pct + '%' })]);
  }
  var COLUMNS = [
    ['passed', 'cells that pass the gate (ignored and rejected among them, unless a baseline expected better)'],
    ['failed', 'cells that fail the gate: a broken requirement, a regression, or a cell the server kept from being tested'],
    ['ignored', 'parameters the model accepted and did not apply'],
    ['rejected', 'parameters the model refused'],
    ['errored', 'cells chatprobe itself could not judge'],
    ['skipped', 'inconclusive cells, or cells not run'],
    ['regressions', 'cells worse than the baseline expects'],
  ];
  var summaryBox = h('details', { cls: 'pin', id: 'summary', open: true });
  function renderSummary(all) {
    summaryBox.textContent = '';
    summaryBox.appendChild(h('summary', null, [h('h2', { text: 'Models, failures first' })]));
    var list = all || worst.length <= SUMMARY_ROWS + 5 ? worst : worst.slice(0, SUMMARY_ROWS);
    var head = h('tr', null, [h('th', { cls: 'num', text: '#' }), h('th', { text: 'model' }), h('th', { text: 'score', title: 'the share of the model’s cells honoured, accepted or passed; the bar: green good, yellow ignored or warned, red rejected, failed or errored, grey inconclusive' })]
      .concat(COLUMNS.map(function (c) { return h('th', { cls: 'num', text: c[0], title: c[1] }); })));
    var rows = list.map(function (m) {
      var t = m.totals;
      var name = h('th', { cls: 'model-name', scope: 'row' }, [h('button', { type: 'button', cls: 'link', title: 'show this model alone in the matrix', onclick: function () { showModel(m); } }, [nameSpan(m.id)])]);
      var kids = [h('td', { cls: 'num', text: String(rank.get(m.id) + 1) }), name, h('td', null, [scoreBar(t)])];
      if (m.notRun) {
        kids.push(h('td', { cls: 'not-probed', colspan: COLUMNS.length - 1, title: 'not probed: one result stands for each of its cells' }, [badge(m.notRun), ' ' + m.notRun.observed]));
        kids.push(h('td', { cls: 'num' + (t.regressions ? ' bad' : ''), text: String(t.regressions) }));
      } else {
        COLUMNS.forEach(function (c) {
          var v = t[c[0]];
          var alarm = v > 0 && (c[0] === 'failed' || c[0] === 'errored' || c[0] === 'regressions');
          kids.push(h('td', { cls: 'num' + (alarm ? ' bad' : ''), text: String(v) }));
        });
      }
      return h('tr', { 'data-model': m.id }, kids);
    });
    summaryBox.appendChild(h('table', { cls: 'plain', id: 'summary-table' }, [h('thead', null, [head]), h('tbody', null, rows)]));
    if (list.length < worst.length) {
      summaryBox.appendChild(h('button', { type: 'button', cls: 'more', id: 'summary-all', text: 'show all ' + worst.length + ' models', onclick: function () { renderSummary(true); } }));
    }
  }
  renderSummary(false);
  app.appendChild(summaryBox);

  // ---- what failed, first ----
  // Cells that regressed or failed, grouped by probe: the groups with regressions first, then the most
  // failures. A group names its first CHIPS models, a click shows the rest; a click on one opens its evidence.
  var GROUPS = 12, CHIPS = 12;
  var groups = [];
  var notRunCells = 0;
  (function () {
    var byProbe = new Map();
    R.results.forEach(function (r) {
      var regression = r.comparison === 'regression';
      if (!regression && r.outcome !== 'failed' && r.outcome !== 'errored') return;
      // Cells a stop left unrun say nothing of the model: counted in one line.
      if (r.notRun) { notRunCells++; return; }
      var g = byProbe.get(r.probe);
      if (!g) byProbe.set(r.probe, (g = { probe: r.probe, regressions: [], failures: [] }));
      (regression ? g.regressions : g.failures).push(r);
    });
    var byRank = function (a, b) { return (rank.has(a.model) ? rank.get(a.model) : -1) - (rank.has(b.model) ? rank.get(b.model) : -1); };
    groups = Array.from(byProbe.values()).sort(function (a, b) {
      return (b.regressions.length - a.regressions.length) || (b.failures.length - a.failures.length) || (probeIndex.get(a.probe) - probeIndex.get(b.probe));
    });
    groups.forEach(function (g) { g.regressions.sort(byRank); g.failures.sort(byRank); });
  })();
  function failChip(r) {
    var regression = r.comparison === 'regression';
    return h('button', { type: 'button', cls: 'fchip' + (regression ? ' reg' : ''), 'data-model': r.model,
      title: r.model + ' · ' + r.probe + ': ' + verdictText(r) + (regression ? ' (regression)' : '') + ': open its evidence', onclick: function () { openCell(r, null); } },
    [h('span', { cls: 'badge ' + tone(r.verdict), text: LETTER[r.verdict] || '·' }), r.model === R.endpoint ? h('span', { cls: 'name', text: 'the endpoint' }) : nameSpan(r.model)]);
  }
  function groupView(g) {
    var p = probeById.get(g.probe) || { requirement: '', scope: 'model' };
    var cells = g.regressions.concat(g.failures);
    var said = [];
    if (g.regressions.length) said.push(g.regressions.length + ' regression(s)');
    var errored = g.failures.filter(function (r) { return r.outcome === 'errored'; }).length;
    if (g.failures.length > errored) said.push(g.failures.length - errored + ' failed');
    if (errored) said.push(errored + ' errored (chatprobe could not judge)');
    var of = p.scope === 'target' ? ' at the endpoint' : ' of ' + models.length + ' model(s)';
    var chips = h('div', { cls: 'chips' });
    function fill(n) {
      chips.textContent = '';
      cells.slice(0, n).forEach(function (r) { chips.appendChild(failChip(r)); });
      if (cells.length > n) chips.appendChild(h('button', { type: 'button', cls: 'more', text: '+' + (cells.length - n) + ' more', onclick: function () { fill(cells.length); } }));
    }
    fill(CHIPS);
    return h('div', { cls: 'group', 'data-probe': g.probe }, [
      h('div', { cls: 'ghead' }, [h('code', { text: g.probe }), h('span', { cls: 'gcount' + (g.regressions.length ? ' bad' : ''), text: said.join(', ') + of })]),
      h('div', { cls: 'greq', text: p.requirement }), chips]);
  }
  var failBox = h('details', { cls: 'pin', id: 'failures', open: true });
  function renderFailures(all) {
    failBox.textContent = '';
    failBox.appendChild(h('summary', null, [h('h2', { text: 'What failed' })]));
    var notProbed = models.filter(function (m) { return m.notRun && (m.notRun.outcome === 'failed' || m.notRun.comparison === 'regression'); });
    if (groups.length === 0 && notProbed.length === 0) failBox.appendChild(h('p', { cls: 'empty', text: 'No cell failed or regressed.' }));
    var list = all || groups.length <= GROUPS + 3 ? groups : groups.slice(0, GROUPS);
    list.forEach(function (g) { failBox.appendChild(groupView(g)); });
    if (list.length < groups.length) {
      failBox.appendChild(h('button', { type: 'button', cls: 'more', id: 'failures-all', text: 'show all ' + groups.length + ' probes with failures', onclick: function () { renderFailures(true); } }));
    }
    if (notProbed.length) failBox.appendChild(h('p', { cls: 'empty', text: notProbed.length + ' model(s) not probed, each counted once: the table of models above says why.' }));
    if (notRunCells) failBox.appendChild(h('p', { cls: 'empty', text: notRunCells + ' cell(s) not run (the run stopped first) are left out here; the matrix shows them.' }));
  }
  renderFailures(false);
  app.appendChild(failBox);

  // ---- the toolbar ----
  var search = h('input', { type: 'search', id: 'search', placeholder: 'Search…', 'aria-label': 'Search' });
  var areaSel = h('select', { id: 'area', 'aria-label': 'Area' }, [h('option', { value: '', text: 'every area' })]);
  Array.from(new Set(R.probes.map(function (p) { return p.area; }))).forEach(function (a) { areaSel.appendChild(h('option', { value: a, text: a })); });
  var modelIn = h('input', { type: 'search', id: 'model', placeholder: 'Model…', 'aria-label': 'Model filter' });
  var layoutSel = h('select', { id: 'layout', 'aria-label': 'Layout' }, [['auto', 'auto layout'], ['across', 'models as columns'], ['down', 'models as rows']]
    .map(function (o) { return h('option', { value: o[0], text: o[1] }); }));
  var orderSel = h('select', { id: 'order', 'aria-label': 'Order of models' }, [['worst', 'failures first'], ['listed', 'as listed']].map(function (o) { return h('option', { value: o[0], text: o[1] }); }));
  var chips = ORDER.filter(function (v) { return counts[v]; }).map(function (v) {
    var box = h('input', { type: 'checkbox', checked: true, 'data-verdict': v });
    var chip = h('label', { cls: 'chip', title: v }, [box, h('span', { cls: 'badge ' + tone(v), text: LETTER[v] }), v + ' ' + counts[v]]);
    box.addEventListener('change', function () {
      if (box.checked) state.verdicts.add(v); else state.verdicts.delete(v);
      chip.classList.toggle('off', !box.checked);
      redraw();
    });
    return chip;
  });
  var shown = h('span', { cls: 'shown', id: 'shown' });
  var toolbar = h('div', { cls: 'toolbar pin' }, [search, areaSel, modelIn, layoutSel, orderSel].concat(chips, [shown]));
  app.appendChild(toolbar);
  function redraw() { state.page = 0; render(); }
  search.addEventListener('input', function () { state.q = search.value.trim().toLowerCase(); redraw(); });
  function modelFilter(text) {
    state.model = text.trim().toLowerCase();
    state.exact = state.model !== '' && models.some(function (m) { return m.id.toLowerCase() === state.model; });
  }
  modelIn.addEventListener('input', function () { modelFilter(modelIn.value); redraw(); });
  areaSel.addEventListener('change', function () { state.area = areaSel.value; redraw(); });
  layoutSel.addEventListener('change', function () { state.layout = layoutSel.value; render(); });
  orderSel.addEventListener('change', function () { state.order = orderSel.value; redraw(); });
  function showModel(m) {
    modelIn.value = m.id;
    modelFilter(m.id);
    redraw();
    matrixBox.scrollIntoView();
  }

  var endpointBox = h('section', { cls: 'pin', id: 'endpoint' });
  function pager(id) {
    var prev = h('button', { type: 'button', cls: 'prev', id: id ? id + '-prev' : null, text: '‹ previous', onclick: function () { state.page--; render(); } });
    var next = h('button', { type: 'button', cls: 'next', id: id ? id + '-next' : null, text: 'next ›', onclick: function () { state.page++; render(); } });
    var label = h('span', { cls: 'page-label', id: id ? id + '-label' : null });
    return { el: h('nav', { cls: 'pager pin', id: id || null, 'aria-label': 'Pages of models' }, [prev, label, next]), prev: prev, next: next, label: label };
  }
  var pagers = [pager('pager'), pager(null)];
  var wrap = h('div', { cls: 'wrap' });
  var matrixBox = h('section', { id: 'matrix-section' }, [h('h2', { cls: 'pin', text: 'Models × probes' }), pagers[0].el, wrap, pagers[1].el]);
  app.appendChild(endpointBox);
  app.appendChild(matrixBox);
  app.appendChild(h('div', { cls: 'legend pin' }, ORDER.map(function (v) { return h('span', null, [h('span', { cls: 'badge ' + tone(v), text: LETTER[v] }), ' ' + v]); })
    .concat([h('span', { text: 'outlined: a regression (red) or improvement (green) against the baseline' })])));

  var cellIndex = [];
  function cellTd(r, m, p, word) {
    var i = cellIndex.length;
    cellIndex.push(r);
    var cls = 'cell ' + tone(r.verdict) + (r.comparison ? ' c-' + r.comparison : '') + (word ? ' word' : '');
    return h('td', { cls: cls, 'data-i': i, title: m.id + ' · ' + p.id + ': ' + verdictText(r) + (r.comparison && r.comparison !== 'expected' ? ' (' + r.comparison + ')' : ''), text: word ? verdictText(r) : LETTER[r.verdict] || '·' });
  }

  function renderEndpoint() {
    endpointBox.textContent = '';
    var rows = targetProbes.map(function (p) { return { p: p, r: byKey.get(R.endpoint + '\u0000' + p.id) }; }).filter(function (x) { return shows(x.r); });
    if (targetProbes.length === 0) return 0;
    endpointBox.appendChild(h('h2', { text: 'Endpoint checks' }));
    if (rows.length === 0) { endpointBox.appendChild(h('p', { cls: 'empty', text: 'No endpoint check matches the filters.' })); return 0; }
    var m = { id: R.endpoint };
    endpointBox.appendChild(h('table', { cls: 'plain', id: 'endpoint-table' }, [h('tbody', null, rows.map(function (x) {
      var td = cellTd(x.r, m, x.p, true);
      return h('tr', null, [h('th', { text: x.p.id, title: x.p.requirement }), td, h('td', { text: x.r.observed })]);
    }))]));
    return rows.length;
  }

  // Models as columns (probes down, each cell its verdict in words) while they fit the window; past that,
  // models as rows, each id whole at the left, and the probes across, one letter a cell.
  var ACROSS_COLUMN = 124;
  function fitsAcross(count, cols) {
    var longest = 0;
    cols.forEach(function (c) { longest = Math.max(longest, c.p.id.length); });
    return 32 + 24 + longest * 7.5 + count * ACROSS_COLUMN <= document.documentElement.clientWidth;
  }
  var drawn = null;
  function renderMatrix() {
    wrap.textContent = '';
    var ps = probes.filter(function (p) { return !state.area || p.area === state.area; });
    var used = ps.map(function () { return false; });
    var kept = [];
    var n = 0;
    ordered().forEach(function (m) {
      if (!modelShown(m)) return;
      var cells = ps.map(function (p) { var r = cellOf(m, p); return shows(r) ? r : null; });
      var any = false;
      cells.forEach(function (c, k) { if (c) { used[k] = true; any = true; n++; } });
      if (any) kept.push({ m: m, cells: cells });
    });
    var pages = Math.max(1, Math.ceil(kept.length / PAGE));
    state.page = Math.max(0, Math.min(state.page, pages - 1));
    var from = state.page * PAGE, to = Math.min(kept.length, from + PAGE);
    pagers.forEach(function (pg) {
      pg.el.hidden = pages <= 1;
      pg.prev.disabled = state.page === 0;
      pg.next.disabled = state.page >= pages - 1;
      pg.label.textContent = 'models ' + (from + 1) + '–' + to + ' of ' + kept.length + ' · page ' + (state.page + 1) + ' of ' + pages;
    });
    drawn = null;
    if (kept.length === 0) { wrap.appendChild(h('p', { cls: 'empty pin', text: 'No cell matches the filters.' })); return 0; }
    var rows = kept.slice(from, to);
    var cols = ps.map(function (p, k) { return { p: p, k: k }; }).filter(function (c) { return used[c.k]; });
    var across = state.layout === 'across' || (state.layout === 'auto' && fitsAcross(rows.length, cols));
    drawn = { rows: rows.length, cols: cols, across: across };
    wrap.appendChild(across ? acrossTable(rows, cols) : downTable(rows, cols));
    stick();
    return n;
  }
  function acrossTable(rows, cols) {
    var head = h('tr', null, [h('th', { cls: 'corner', text: 'probe \\ model' })]);
    rows.forEach(function (x) {
      head.appendChild(h('th', { cls: 'model', scope: 'col', 'data-model': x.m.id, title: x.m.notRun ? 'not probed: ' + x.m.notRun.observed : null }, [nameSpan(x.m.id)]));
    });
    var body = h('tbody');
    var area = null;
    cols.forEach(function (c) {
      if (c.p.area !== area) {
        area = c.p.area;
        body.appendChild(h('tr', { cls: 'area' }, [h('th', { colspan: rows.length + 1 }, [h('span', { text: area })])]));
      }
      var tr = h('tr', { 'data-probe': c.p.id }, [h('th', { cls: 'probe', scope: 'row', title: c.p.requirement, text: c.p.id })]);
      rows.forEach(function (x) { var r = x.cells[c.k]; tr.appendChild(r ? cellTd(r, x.m, c.p, true) : h('td', { cls: 'off' })); });
      body.appendChild(tr);
    });
    return h('table', { cls: 'matrix across', id: 'matrix' }, [h('thead', null, [head]), body]);
  }
  // A cell's width in letters; an area's name wider than its columns is left to its probes' own headers.
  var CELL = 26;
  function downTable(rows, cols) {
    var areas = h('tr', { cls: 'areas' }, [h('th', { cls: 'corner', rowspan: 2, text: 'model \\ probe' })]);
    var names = h('tr', { cls: 'names' });
    var groups = [];
    cols.forEach(function (c) {
      var g = groups[groups.length - 1];
      if (!g || g.area !== c.p.area) groups.push((g = { area: c.p.area, cols: [] }));
      g.cols.push(c);
    });
    var starts = new Set();
    groups.forEach(function (g) {
      // The area's name fits above its columns, or each probe's header carries its whole id.
      var fits = g.area.length * 7 + 8 <= g.cols.length * CELL;
      var th = h('th', { cls: 'area', colspan: g.cols.length, title: g.area }, [h('span', { text: fits ? g.area : '' })]);
      areas.appendChild(th);
      starts.add(g.cols[0].k);
      g.cols.forEach(function (c, i) {
        var short = fits && c.p.id.indexOf(g.area + '.') === 0 ? c.p.id.slice(g.area.length + 1) : c.p.id;
        names.appendChild(h('th', { cls: 'pcol' + (i === 0 ? ' first' : ''), scope: 'col', 'data-probe': c.p.id, title: c.p.id + ': ' + c.p.requirement }, [h('span', { text: short })]));
      });
    });
    var body = h('tbody');
    rows.forEach(function (x) {
      var tr = h('tr', { 'data-model': x.m.id }, [h('th', { cls: 'model', scope: 'row', title: x.m.notRun ? 'not probed: ' + x.m.notRun.observed : null }, [nameSpan(x.m.id)])]);
      cols.forEach(function (c) {
        var r = x.cells[c.k];
        var td = r ? cellTd(r, x.m, c.p, false) : h('td', { cls: 'off' });
        if (starts.has(c.k)) td.classList.add('first');
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    return h('table', { cls: 'matrix down', id: 'matrix' }, [h('thead', null, [areas, names]), body]);
  }

  // The window scrolls the matrix both ways (no scroll box inside the page): the toolbar and the matrix's
  // header rows stick under the window's top, the model or probe column at its left, and the rest of the
  // page keeps to the window's width while the matrix is wider.
  function stick() {
    var root = document.documentElement;
    root.style.setProperty('--view', root.clientWidth + 'px');
    root.style.setProperty('--bar', toolbar.offsetHeight + 'px');
    var t = document.getElementById('matrix');
    if (t && t.tHead && t.tHead.rows.length > 1) t.style.setProperty('--head1', t.tHead.rows[0].offsetHeight + 'px');
  }
  var resizing = false;
  window.addEventListener('resize', function () {
    if (resizing) return;
    resizing = true;
    requestAnimationFrame(function () {
      resizing = false;
      stick();
      // A window made wider or narrower may fit the models as columns, or no longer.
      if (drawn && state.layout === 'auto' && fitsAcross(drawn.rows, drawn.cols) !== drawn.across) render();
    });
  });

  var total = probes.length * models.length + targetProbes.length;
  // Each change redraws at once (a page of 50 models × 80 probes takes a few tens of ms): what the page
  // shows always follows its filters.
  function render() {
    cellIndex = [];
    var n = renderEndpoint() + renderMatrix();
    shown.textContent = 'showing ' + n + ' of ' + total + ' cells';
  }

  var panel = h('aside', { cls: 'panel', id: 'panel', hidden: true, role: 'dialog', 'aria-label': 'Cell evidence' });
  document.body.appendChild(panel);
  var openTd = null;
  function openCell(r, td) {
    if (openTd) openTd.classList.remove('open');
    openTd = td || null;
    if (openTd) openTd.classList.add('open');
    panel.textContent = '';
    var p = probeById.get(r.probe) || { requirement: '', kind: r.kind, area: '' };
    add(panel, [h('button', { cls: 'close', type: 'button', text: 'close', onclick: closePanel }), h('h2', { text: r.model + ' · ' + r.probe })].concat(cellDetails(r, p, STORE)));
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
    var box = h('section', { cls: 'pin', id: 'timings' }, [h('h2', { text: 'Stream timings' })]);
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
      return h('tr', null, [h('th', null, [nameSpan(id)]), h('td', { text: String(t.streams) }), h('td', { text: ms(metrics.ttftMsMedian) }), h('td', { text: ms(metrics.gapMsMedian) }),
        h('td', { text: metrics.chunksPerSecondMedian === undefined ? '' : String(Math.round(metrics.chunksPerSecondMedian)) }), h('td', null, [strip]), h('td', null, [hist])]);
    });
    box.appendChild(h('table', { cls: 'plain' }, [h('thead', null, [h('tr', null, ['model', 'streams', 'first token (median)', 'gap (median)', 'chunks/s', 'first event', 'gaps'].map(function (x) { return h('th', { text: x }); }))]), h('tbody', null, rows)]));
    return box;
  }
  app.appendChild(timingsSection());
  var billing = billingSection(h, R);
  if (billing) app.appendChild(billing);
  var identity = identitySection(h, R);
  if (identity) app.appendChild(identity);

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
