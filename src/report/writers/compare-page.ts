/**
 * The style and script of the comparison page (writers/compare-html.ts): two runs, or the endpoints of one
 * run, side by side. It reads from the top: the runs, the counts, each difference (worst first) with every
 * run's cell and its evidence beside each other, then every cell of every run, a page at a time. A cell's
 * evidence is drawn by report.html's own code (html-page.ts KIT_JS), from each run's exchanges.
 */
import { KIT_JS, PAGE_CSS } from './html-page.js';

export const COMPARE_CSS =
  PAGE_CSS +
  String.raw`
body { width: auto; }
.runs { margin: 4px 16px 0; }
.runs th { font-weight: 600; }
.runs td.url { overflow-wrap: anywhere; max-width: 40em; }
.counts { margin: 8px 16px; }
.notes { margin: 4px 16px; color: #555; font-size: 13px; }
.diff { border: 1px solid var(--line); border-radius: 6px; margin: 10px 16px; padding: 0 12px 8px; }
.diff > summary { margin: 8px 0; display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; }
.diff > summary h3 { display: inline; margin: 0; font-size: 14px; overflow-wrap: anywhere; }
.diff.c-worse, .diff.c-model_missing { border-left: 4px solid var(--bad-ink); }
.diff.c-better { border-left: 4px solid var(--good-ink); }
.diff.c-different, .diff.c-model_added { border-left: 4px solid var(--notice-ink); }
.change { font-size: 12px; font-weight: 600; text-transform: uppercase; letter-spacing: .03em; }
.sides { display: grid; grid-template-columns: repeat(var(--runs, 2), minmax(0, 1fr)); gap: 12px; }
.side { min-width: 0; border-top: 3px solid var(--line); padding-top: 4px; }
.side h4 { margin: 2px 0 4px; font-size: 13px; overflow-wrap: anywhere; }
.side dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 4px 12px; margin: 8px 0; }
.side dt { color: #555; }
.side dd { margin: 0; white-space: pre-wrap; word-break: break-word; }
.side h3 { font-size: 13px; margin: 10px 0 4px; }
.side .exchange pre { max-height: 18em; }
.side table.headers { display: block; overflow-x: auto; }
table.cells { margin: 0 16px; }
table.cells td.v { white-space: nowrap; cursor: pointer; }
table.cells tr.changed th { box-shadow: inset 4px 0 0 var(--bad-ink); }
table.cells th.model { max-width: 24em; font-weight: 500; }
table.cells td.probe { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
aside.panel { width: min(1100px, 100vw); }
`;

export const COMPARE_JS =
  String.raw`
(function () {
  'use strict';` +
  KIT_JS +
  String.raw`
  var C = data('compare-data');
  TONES = C.tones;
  var N = C.runs.length;
  document.documentElement.style.setProperty('--runs', String(N));
  // Each run's recorded exchanges, read when a cell's evidence is first drawn.
  var stores = C.runs.map(function (run, i) {
    return { block: 'exchanges-' + i, recorded: run.exchangesRecorded,
      none: 'exchanges were not recorded for ' + run.label + ' (no exchanges.har beside its report)',
      left: 'not on this page: look it up in the exchanges.har of ' + run.label };
  });
  var probeById = new Map(C.probes.map(function (p) { return [p.id, p]; }));
  var CHANGE_WORDS = C.runs.length === 2
    ? { worse: 'worse in ' + C.runs[1].label, better: 'better in ' + C.runs[1].label, different: 'different', model_missing: 'model gone from ' + C.runs[1].label, model_added: 'model new in ' + C.runs[1].label }
    : { worse: 'worse than ' + C.runs[0].label, better: 'better than ' + C.runs[0].label, different: 'different from ' + C.runs[0].label, model_missing: 'model gone from an endpoint', model_added: 'model only at some endpoints' };
  function modelName(id) { return id === C.endpoint ? 'the endpoint' : id; }

  var app = document.getElementById('app');
  app.appendChild(h('header', { cls: 'top' }, [
    h('h1', { text: C.title }),
    h('table', { cls: 'plain runs', id: 'runs' }, [
      h('thead', null, [h('tr', null, ['', 'base URL', 'started', 'models', 'exit code', 'report'].map(function (x) { return h('th', { text: x }); }))]),
      h('tbody', null, C.runs.map(function (run) {
        return h('tr', null, [h('th', { text: run.label }), h('td', { cls: 'url', text: run.baseUrl }), h('td', { text: run.startedAt }),
          h('td', { text: String(run.models) }), h('td', { text: run.exitCode === undefined ? '' : String(run.exitCode) }), h('td', { cls: 'url', text: run.path })]);
      })),
    ]),
  ]));
  var counts = C.counts;
  var said = [counts.differences + ' cell(s) differ'].concat(['worse', 'model_missing', 'different', 'better', 'model_added'].filter(function (k) { return counts[k]; })
    .map(function (k) { return counts[k] + ' ' + CHANGE_WORDS[k]; }));
  app.appendChild(h('p', { cls: 'counts', id: 'counts', text: said.join(' · ') + ' · ' + counts.same + ' cell(s) alike or not compared' }));
  C.notes.forEach(function (n) { app.appendChild(h('p', { cls: 'notes', text: n })); });

  // One row, every run's cell beside the others', with its evidence.
  function sides(row) {
    var p = probeById.get(row.probe) || { requirement: '', kind: '', area: '' };
    return h('div', { cls: 'sides' }, row.cells.map(function (r, i) {
      var kids = [h('h4', { text: C.runs[i].label })];
      if (!r) kids.push(h('p', { cls: 'empty', text: 'No such cell in ' + C.runs[i].label + '.' }));
      else kids = kids.concat(cellDetails(r, p, stores[i]));
      return h('div', { cls: 'side', 'data-run': i }, kids);
    }));
  }
  function rowTitle(row) { return modelName(row.model) + ' · ' + row.probe; }
  function verdicts(row) { return row.cells.map(function (r) { return r ? verdictText(r) : '—'; }).join(' → '); }

  // ---- the differences, worst first ----
  // The first OPEN are drawn with their evidence; the rest open (and draw) on a click. A page of 2,000
  // differences with every exchange drawn would be slow to open and to read.
  var OPEN = 10, LISTED = 50;
  var diffBox = h('section', { id: 'differences' });
  function renderDiffs(all) {
    diffBox.textContent = '';
    diffBox.appendChild(h('h2', { text: 'Differences, worst first (' + C.differences.length + ')' }));
    if (C.differences.length === 0) diffBox.appendChild(h('p', { cls: 'empty', text: 'No compared cell differs.' }));
    var list = all ? C.differences : C.differences.slice(0, LISTED);
    list.forEach(function (row, i) {
      var box = h('details', { cls: 'diff c-' + row.change, 'data-model': row.model, 'data-probe': row.probe, open: i < OPEN });
      box.appendChild(h('summary', null, [h('h3', { text: rowTitle(row) }), h('span', { cls: 'change', text: CHANGE_WORDS[row.change] }), h('span', { cls: 'facts', text: verdicts(row) })]));
      var drawn = false;
      function draw() { if (!drawn && box.open) { drawn = true; box.appendChild(sides(row)); } }
      box.addEventListener('toggle', draw);
      draw();
      diffBox.appendChild(box);
    });
    if (list.length < C.differences.length) diffBox.appendChild(h('button', { type: 'button', cls: 'more', id: 'differences-all', text: 'show all ' + C.differences.length + ' differences', onclick: function () { renderDiffs(true); } }));
  }
  renderDiffs(false);
  app.appendChild(diffBox);

  // ---- the same model? (identity.*: each pair of fingerprints weighed) ----
  var pairs = (C.identity || []).filter(function (p) { return p.models.length > 0; });
  if (pairs.length > 0) {
    var idBox = h('section', { id: 'identity' }, [h('h2', { text: 'Same model behind each name? (fingerprints)' })]);
    // A rate is undefined only where no test was made (no prompt answered on both sides): none to quote.
    var pct = function (x) { return x === undefined || x === null ? 'none measured' : (Math.round(x * 1000) / 10) + '%'; };
    var num = function (x) { return String(Math.round(x * 1000) / 1000); };
    pairs.forEach(function (p) {
      var rows = p.models.map(function (m) {
        var c = m.comparison;
        var where = c.where.map(function (w) { return w.prompt + ': ' + (c.signal === 'logprobs' ? 'moved ' + num(w.distance) + ', ' : '') + p.a + ' ' + JSON.stringify(w.a === undefined ? null : w.a) + ', ' + p.b + ' ' + JSON.stringify(w.b === undefined ? null : w.b); }).join('; ');
        // The tokenizers, where the two differ: exact counts, no rate of chance to quote.
        var t = c.tokenizer && c.tokenizer.a.family !== c.tokenizer.b.family ? c.tokenizer : null;
        if (t) where = 'tokenizer: ' + p.a + ' ' + t.a.label + ' (the unit ' + t.a.unitTokens + ' tokens a copy), ' + p.b + ' ' + t.b.label + ' (' + t.b.unitTokens + ')' + (where ? '; ' + where : '');
        var like = c.verdict === 'different' ? 'fail' : c.verdict === 'same' ? 'pass' : 'inconclusive';
        return h('tr', { 'data-model': m.model, 'data-identity': c.verdict }, [
          h('th', { cls: 'model' }, [nameSpan(m.model)]),
          h('td', null, [h('span', { cls: 'badge ' + tone(like), text: c.verdict })]),
          h('td', { text: t ? 'tokenizer: the unit ' + t.a.unitTokens + ' against ' + t.b.unitTokens + ' tokens a copy' : c.signal + ': ' + num(c.statistic) + ' against ' + num(c.threshold) }),
          h('td', { text: (c.signal === 'tokenizer' ? 'exact counts: false alarms 0' : c.signal === 'none' ? 'no test made' : 'false alarms ' + pct(c.falseAlarmRate) + ', power ' + pct(c.power)) + '; ' + c.sampleSize.a + '/' + c.sampleSize.b + ' answers, ' + c.sampleSize.prompts + ' prompts' }),
          h('td', { cls: 'why', text: c.why + (where && c.verdict !== 'same' ? ' · where: ' + where : '') }),
        ]);
      });
      idBox.appendChild(h('h3', { text: p.a + ' → ' + p.b }));
      idBox.appendChild(h('table', { cls: 'plain identity' }, [h('thead', null, [h('tr', null, ['model', 'verdict', 'statistic', 'rates and sample', 'why'].map(function (x) { return h('th', { text: x }); }))]), h('tbody', null, rows)]));
    });
    app.appendChild(idBox);
  }


  // ---- every cell ----
  var PAGE = 200;
  var all = C.differences.concat(C.same);
  var page = 0;
  var cellsBox = h('section', { id: 'cells' });
  var panel = h('aside', { cls: 'panel', id: 'panel', hidden: true, role: 'dialog', 'aria-label': 'Cells side by side' });
  document.body.appendChild(panel);
  function closePanel() { panel.hidden = true; }
  function openRow(row) {
    panel.textContent = '';
    add(panel, [h('button', { cls: 'close', type: 'button', text: 'close', onclick: closePanel }), h('h2', { text: rowTitle(row) }),
      row.notCompared ? h('p', { cls: 'notes', text: 'not compared: ' + row.notCompared }) : null, sides(row)]);
    panel.hidden = false;
    panel.scrollTop = 0;
  }
  document.addEventListener('keydown', function (ev) { if (ev.key === 'Escape' && !panel.hidden) closePanel(); });
  function renderCells() {
    cellsBox.textContent = '';
    var pages = Math.max(1, Math.ceil(all.length / PAGE));
    page = Math.max(0, Math.min(page, pages - 1));
    var from = page * PAGE, to = Math.min(all.length, from + PAGE);
    cellsBox.appendChild(h('h2', { text: 'Every cell (' + all.length + '), differences first' }));
    if (pages > 1) cellsBox.appendChild(h('nav', { cls: 'pager', id: 'cells-pager' }, [
      h('button', { type: 'button', text: '‹ previous', disabled: page === 0, onclick: function () { page--; renderCells(); } }),
      h('span', { text: 'rows ' + (from + 1) + '–' + to + ' of ' + all.length + ' · page ' + (page + 1) + ' of ' + pages }),
      h('button', { type: 'button', text: 'next ›', disabled: page >= pages - 1, onclick: function () { page++; renderCells(); } })]));
    var head = h('tr', null, [h('th', { text: 'model' }), h('th', { text: 'probe' })].concat(C.runs.map(function (run) { return h('th', { text: run.label }); })));
    var body = h('tbody', null, all.slice(from, to).map(function (row) {
      return h('tr', { cls: row.change ? 'changed' : null, 'data-model': row.model, 'data-probe': row.probe }, [h('th', { cls: 'model' }, [nameSpan(modelName(row.model))]), h('td', { cls: 'probe', text: row.probe })]
        .concat(row.cells.map(function (r) {
          return h('td', { cls: 'v', title: 'open the cells side by side', onclick: function () { openRow(row); } }, [r ? badge(r) : '—']);
        })));
    }));
    cellsBox.appendChild(h('table', { cls: 'plain cells', id: 'cells-table' }, [h('thead', null, [head]), body]));
  }
  renderCells();
  app.appendChild(cellsBox);
})();
`;
