/**
 * report.html's "Fingerprints" section (identity.*): each model's fingerprint as the report keeps it
 * (models[].fingerprint, shown through results/identity.ts viewFingerprint): the signal, its own spread at
 * temperature 0, the anchor's repeats one by one (answer and first-token logprob, each a link to its
 * exchange's call id), and the comparison with the baseline's fingerprint when the run had one. A function
 * of the page's script of its own, given the page's element maker and data: it adds text nodes only.
 */
export const IDENTITY_JS = String.raw`
function identitySection(h, R) {
  var rows = R.models.filter(function (m) { return m.fingerprintView; });
  if (rows.length === 0) return null;
  var checks = new Map((R.identity || []).map(function (c) { return [c.model, c]; }));
  var box = h('section', { id: 'fingerprints' }, [h('h2', { text: 'Fingerprints (is it the same model?)' })]);
  box.appendChild(h('p', { cls: 'empty', text: 'Fixed prompts at temperature 0; the anchor repeated for the model\'s own spread. Repeats that fall in two groups are two backends behind one name (identity.mixed_backends).' }));
  var num = function (x) { return x === undefined ? '' : String(Math.round(x * 1000) / 1000); };
  var lines = rows.slice(0, 200).map(function (m) {
    var v = m.fingerprintView;
    var answers = {};
    var chips = v.repeats.map(function (r) {
      if (r.answer === undefined) return h('span', { cls: 'fp-rep t-muted', title: r.evidence + ': ' + (r.error || 'no answer'), text: '✗' });
      if (!(r.answer in answers)) answers[r.answer] = Object.keys(answers).length;
      var tone = answers[r.answer] === 0 ? 't-good' : 't-notice';
      return h('span', { cls: 'fp-rep ' + tone, title: r.evidence, text: JSON.stringify(r.answer) + (r.logprob === undefined ? '' : ' ' + num(r.logprob)) });
    });
    var c = checks.get(m.id);
    var gate = c ? c.verdict + (c.require ? ' (requires ' + c.require.replace('_', ' ') + ': ' + c.outcome + ')' : '') + ' · ' + c.why : '';
    return h('tr', { 'data-model': m.id }, [
      h('th', { text: m.id }),
      h('td', { text: v.signal === 'logprobs' ? 'logprobs' : 'answers only' }),
      h('td', { text: v.answered + '/' + v.sent }),
      h('td', { text: num(v.spread) }),
      h('td', { cls: 'chips' }, chips),
      h('td', { text: v.systemFingerprints.join(', ') }),
      h('td', { text: gate }),
    ]);
  });
  box.appendChild(h('table', { cls: 'plain' }, [h('thead', null, [h('tr', null, ['model', 'signal', 'answered', 'own spread', 'anchor repeats (answer, first-token logprob)', 'system_fingerprint', 'against the baseline'].map(function (x) { return h('th', { text: x }); }))]), h('tbody', null, lines)]));
  if (rows.length > 200) box.appendChild(h('p', { cls: 'empty', text: 'The first 200 of ' + rows.length + ' fingerprints; report.json has them all.' }));
  return box;
}
`;
