import type { Page } from 'playwright-core';

/**
 * What a reader would see wrong on the screen as it is drawn now (the state a screenshot captures), found
 * from the page's geometry rather than its pixels:
 * - a cut name: an element of `names` whose text overflows its box, or lies outside it (clipped);
 * - a covered name: at the middle of a line of it, something else is drawn (a sticky bar, a panel, another
 *   cell), unless it is where the stuck toolbar and header rows are, which the page scrolls it under;
 * - overlapping text: lines of text of two different elements of `labels` that intersect.
 * Only what is in the window counts. Run in the page; returns one line per problem.
 */
export function layoutProblems(page: Page, names: string, labels: string): Promise<string[]> {
  // An expression, not a function: the tests are compiled without the DOM's types.
  return page.evaluate<string[]>(`(${LAYOUT_SCRIPT})(${JSON.stringify({ names, labels })})`);
}

const LAYOUT_SCRIPT = String.raw`function (opts) {
  var root = document.documentElement;
  var W = root.clientWidth, H = root.clientHeight;
  var problems = [];
  function shows(r) { return r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < W && r.top < H; }
  function said(el) { return JSON.stringify((el.textContent || '').slice(0, 80)); }
  // Where the stuck toolbar, the stuck header rows and the stuck model (or probe) column end: what the page
  // scrolls under them is hidden on purpose; they themselves are checked like the rest.
  var barEnd = 0, headEnd = 0, columnEnd = 0;
  var bar = document.querySelector('.toolbar');
  if (bar) { var b = bar.getBoundingClientRect(); if (b.top <= 0.5) barEnd = b.bottom; }
  headEnd = barEnd;
  var table = document.getElementById('matrix');
  if (table && table.tHead) {
    // The header cells stick (the thead itself scrolls away): stuck when they are no longer at the table's top.
    var t = table.getBoundingClientRect();
    Array.prototype.forEach.call(table.tHead.querySelectorAll('th'), function (th) {
      var r = th.getBoundingClientRect();
      if (r.top > t.top + 1) headEnd = Math.max(headEnd, r.bottom);
    });
    var corner = table.querySelector('th.corner');
    if (corner) { var c = corner.getBoundingClientRect(); if (c.left > t.left + 1) columnEnd = c.right; }
  }
  // The part of the window where the element is in view: below what sticks above it, right of what sticks left of it.
  function room(el) {
    var sticky = el.closest('th.corner, tbody th.model, tbody th.probe, tr.area th');
    return {
      top: el.closest('.toolbar') ? 0 : el.closest('thead') ? barEnd : headEnd,
      left: sticky ? 0 : columnEnd,
    };
  }
  function textRects(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    return Array.prototype.filter.call(range.getClientRects(), function (r) { return r.width > 0.5 && r.height > 0.5; });
  }
  Array.prototype.forEach.call(document.querySelectorAll(opts.names), function (el) {
    var box = el.getBoundingClientRect();
    if (!shows(box)) return;
    var free = room(el);
    if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) problems.push('cut (overflows its box): ' + said(el));
    textRects(el).forEach(function (r) {
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) problems.push('cut (text outside its box): ' + said(el));
      var x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
      if (x < free.left || y < free.top || x >= W || y >= H) return;
      var hit = document.elementFromPoint(x, y);
      if (!hit || (hit !== el && !el.contains(hit))) problems.push('covered: ' + said(el) + ' under ' + (hit ? hit.tagName.toLowerCase() + '.' + hit.className + ' ' + said(hit) : 'nothing'));
    });
  });
  var boxes = [];
  Array.prototype.forEach.call(document.querySelectorAll(opts.labels), function (el) {
    var free = room(el);
    textRects(el).forEach(function (r) { if (shows(r) && r.top >= free.top - 0.5 && r.left >= free.left - 0.5) boxes.push({ el: el, r: r }); });
  });
  for (var i = 0; i < boxes.length; i++) {
    for (var j = i + 1; j < boxes.length; j++) {
      var a = boxes[i], z = boxes[j];
      if (a.el === z.el || a.el.contains(z.el) || z.el.contains(a.el)) continue;
      var w = Math.min(a.r.right, z.r.right) - Math.max(a.r.left, z.r.left);
      var h = Math.min(a.r.bottom, z.r.bottom) - Math.max(a.r.top, z.r.top);
      if (w > 1 && h > 1) problems.push('overlap: ' + said(a.el) + ' and ' + said(z.el));
    }
  }
  return problems;
}`;

/** Whether anything between the element and the document scrolls: the matrix should use the window. */
export function scrollBoxesAround(page: Page, selector: string): Promise<string[]> {
  return page.evaluate<string[]>(
    `(function (sel) {
      var out = [];
      for (var el = document.querySelector(sel); el && el !== document.body; el = el.parentElement) {
        var s = getComputedStyle(el);
        if (/auto|scroll|hidden/.test(s.overflowX + ' ' + s.overflowY)) out.push(el.tagName.toLowerCase() + '.' + el.className + ': ' + s.overflowX + ' ' + s.overflowY);
      }
      return out;
    })(${JSON.stringify(selector)})`,
  );
}
