/**
 * report.html's "Usage and billing" section: each model's metered calls (billing.* probes) as the report
 * keeps them (models[].billing): usage beside the deduction, the listed price (--prices), when the balance
 * showed it, and why a deduction was given to no call. A function of the page's script of its own, given
 * the page's element maker and data: it adds text nodes only, like the rest of the page.
 */
export const BILLING_JS = String.raw`
function billingSection(h, R) {
  var rows = R.models.filter(function (m) { return m.billing; });
  var plan = R.billing;
  if (!plan || (plan.off && rows.length === 0)) return null;
  var box = h('section', { id: 'billing' }, [h('h2', { text: 'Usage and billing' })]);
  if (plan.off) { box.appendChild(h('p', { cls: 'empty', text: 'Not audited: ' + plan.off + '.' })); return box; }
  box.appendChild(h('p', { cls: 'empty', text: 'Read through ' + plan.route + ' (' + plan.kind + '), in ' + plan.unit + ': each call sent between two reads of the balance, nothing else in flight.' }));
  if (rows.length === 0) { box.appendChild(h('p', { cls: 'empty', text: 'No model was called for it.' })); return box; }
  var num = function (n) { return n === undefined ? '' : String(Number(n.toPrecision(6))); };
  var secs = function (ms) { return (ms / 1000).toFixed(1) + ' s'; };
  rows.forEach(function (m) {
    var b = m.billing;
    var head = [h('strong', { text: m.id })];
    if (b.settlement) head.push(h('span', { text: ' · watched ' + secs(b.settlement.quietMs) + ' with nothing sent; charges shown up to ' + secs(b.settlement.lateMs) + ' after their call' }));
    if (b.prices) head.push(h('span', { text: ' · prices from ' + b.prices }));
    box.appendChild(h('p', { cls: 'facts' }, head));
    var lines = b.calls.map(function (c) {
      var usage = c.promptTokens === undefined || c.completionTokens === undefined ? '' : c.promptTokens + ' + ' + c.completionTokens;
      var said = c.unattributed ? 'given to no call: ' + c.unattributed : c.pricedAs ? 'the price of ' + c.pricedAs.join(', ') : '';
      return h('tr', null, [h('td', { text: c.call }), h('td', { text: c.status === undefined ? '' : String(c.status) }), h('td', { text: String(c.limit) }), h('td', { text: usage }),
        h('td', { text: num(c.deducted) }), h('td', { text: num(c.listed) }), h('td', { text: c.lagMs === undefined ? '' : c.lagMs + ' ms' }), h('td', { text: said })]);
    });
    box.appendChild(h('table', { cls: 'plain' }, [h('thead', null, [h('tr', null, ['call', 'HTTP', 'limit', 'usage (prompt + completion)', 'deducted', 'listed price', 'shown after', ''].map(function (x) { return h('th', { text: x }); }))]), h('tbody', null, lines)]));
    [b.unmeasurable, b.unbilled].forEach(function (t) { if (t) box.appendChild(h('p', { cls: 'warn-line', text: t })); });
  });
  return box;
}
`;
