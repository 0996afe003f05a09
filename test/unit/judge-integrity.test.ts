import { describe, expect, it } from 'vitest';
import { explain, judgeIntegrity } from '../../suites/support/integrity.js';
import { delta, errorIn200, refusedStream, reply, streamed } from '../helpers/exchanges.js';

const COUNT = '1, 2, 3, 4, 5, 6, 7, 8';
/** The counting answer as a server streams it: a number, then ", ", a piece each. */
const piecesOf = (text: string) => text.split(/(?<=\d)(?=,)|(?<=, )/);
const stream = (pieces: string[], o: { usageIn?: number } = {}) =>
  streamed([
    delta({ role: 'assistant', content: '' }),
    ...pieces.map((p, i) => (i === o.usageIn ? { ...delta({ content: p }, 'stop'), usage: { prompt_tokens: 9, completion_tokens: 0, total_tokens: 9 } } : delta({ content: p }))),
    delta({}, 'stop'),
  ]);
const codes = (v: ReturnType<typeof judgeIntegrity>) => (v.findings ?? []).filter((f) => f.severity === 'fail').map((f) => f.code);

describe('explain', () => {
  it('takes a piece that fits where it stands before calling it a repeat: "1", "1" of "11" is the answer', () => {
    expect(explain(['1', '1', ', 12'], '11, 12')).toEqual({ repeats: [], swaps: [] });
    expect(explain(['1', ', ', '1', '1', ', 12'], '1, 11, 12')).toEqual({ repeats: [], swaps: [] });
  });

  it('finds the pieces sent twice and the neighbours swapped', () => {
    expect(explain(['1', ', ', '2', '2', ', ', '3', '3', '3'], '1, 2, 3')).toEqual({ repeats: [3, 6, 7], swaps: [] });
    expect(explain(['1', ', ', ', ', '2'], '1, 2')).toEqual({ repeats: [2], swaps: [] });
    expect(explain(['1', ', ', '3', ', ', '2'], '1, 2, 3')).toBeUndefined();
    expect(explain(['1', '2', ', ', ', '], '1, 2, ')).toEqual({ repeats: [], swaps: [1] });
  });

  it('explains nothing it cannot: another word, a lost piece, a repeat that is not of its neighbour', () => {
    expect(explain(['1', ', ', '2', ', ', 'three'], '1, 2, 3')).toBeUndefined();
    expect(explain(['1', ', ', '3'], '1, 2, 3')).toBeUndefined();
    expect(explain(['1', ', ', '2', ', ', '1'], '1, 2, ')).toBeUndefined();
  });

  it('gives up within its bound on a stream built to make the search explode', () => {
    const pieces = Array.from({ length: 3000 }, () => 'a');
    expect(explain(pieces, `${'a'.repeat(1500)}b`)).toBeUndefined();
  });
});

describe('streaming.integrity', () => {
  const unstreamed = reply(COUNT);

  it('passes a stream that assembles into the unstreamed answer', () => {
    const v = judgeIntegrity(stream(piecesOf(COUNT)), unstreamed, true);
    expect(v.verdict).toBe('pass');
    expect(v.observed).toContain('same request gets unstreamed at temperature 0');
  });

  it('passes a model whose own answer has a repeated token ("1", "1" of "11"): nothing is a repeat the answer has', () => {
    const text = '9, 10, 11, 12';
    expect(judgeIntegrity(stream(['9', ', ', '1', '0', ', ', '1', '1', ', ', '1', '2']), reply(text), true).verdict).toBe('pass');
  });

  it('fails a stream whose pieces came twice, naming each repeat', () => {
    const pieces = piecesOf(COUNT);
    const raced = [...pieces.slice(0, 5), pieces[4]!, ...pieces.slice(5, 11), pieces[10]!, ...pieces.slice(11)];
    const v = judgeIntegrity(stream(raced), unstreamed, true);
    expect(v.verdict).toBe('fail');
    expect(codes(v)).toEqual(['repeated_piece', 'repeated_piece']);
    expect(v.observed).toContain('piece 6 "3" came twice');
  });

  it('fails the usage arriving in a chunk that repeats the last piece, and says so', () => {
    const pieces = piecesOf(COUNT);
    const v = judgeIntegrity(stream([...pieces, pieces.at(-1)!], { usageIn: pieces.length }), unstreamed, true);
    expect(v.verdict).toBe('fail');
    expect(v.observed).toContain('in the chunk that carried the usage');
  });

  it('fails neighbours swapped', () => {
    const pieces = piecesOf(COUNT);
    const swapped = [...pieces.slice(0, 4), pieces[5]!, pieces[4]!, ...pieces.slice(6)];
    const v = judgeIntegrity(stream(swapped), unstreamed, true);
    expect(codes(v)).toEqual(['reordered']);
  });

  it('is inconclusive where the model may have varied: another answer, or a repeat when temperature 0 was refused', () => {
    const other = judgeIntegrity(stream(piecesOf('1, 2, 3, 4, 5')), unstreamed, true);
    expect(other.verdict).toBe('inconclusive');
    expect(other.observed).toMatch(/first difference at character 14.*model's own variation/);
    const pieces = piecesOf(COUNT);
    const sampled = judgeIntegrity(stream([...pieces.slice(0, 3), pieces[2]!, ...pieces.slice(3)]), unstreamed, false);
    expect(sampled.verdict).toBe('inconclusive');
    expect(sampled.observed).toContain('temperature 0 was refused');
  });

  it('fails content lost on the way: none streamed, though the usage counts tokens and the unstreamed answer has text; not a model that answered nothing', () => {
    const empty = (completion: number, reasoning?: string) =>
      streamed([delta({ role: 'assistant', content: '', ...(reasoning ? { reasoning_content: reasoning } : {}) }), delta({}, 'stop'), { id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 9, completion_tokens: completion, total_tokens: 9 + completion } }]);
    const lost = judgeIntegrity(empty(23), unstreamed, true);
    expect(codes(lost)).toEqual(['content_lost']);
    // Trap: no tokens counted (the model ended its turn at once): nothing was lost.
    expect(judgeIntegrity(empty(0), unstreamed, true).verdict).toBe('inconclusive');
    // Trap: the tokens went to reasoning in the stream.
    expect(judgeIntegrity(empty(23, 'thinking'), unstreamed, true).verdict).toBe('inconclusive');
    // Trap: temperature 0 refused: the two answers were sampled.
    expect(judgeIntegrity(empty(23), unstreamed, false).verdict).toBe('inconclusive');
  });

  it('passes white space at the ends only, with a note', () => {
    const v = judgeIntegrity(stream(piecesOf(COUNT).concat('\n')), unstreamed, true);
    expect(v.verdict).toBe('pass');
    expect(v.findings?.map((f) => f.code)).toEqual(['whitespace']);
  });

  it('judges nothing without both answers: a refused stream, an error body in the unstreamed 200, an empty answer', () => {
    expect(judgeIntegrity(refusedStream(400, "Unrecognized request argument supplied: stream_options"), unstreamed, true).verdict).toBe('inconclusive');
    expect(judgeIntegrity(stream(piecesOf(COUNT)), reply(null), true).observed).toContain('got no answer to compare with');
    const disguised = judgeIntegrity(stream(piecesOf(COUNT)), errorIn200(), true);
    expect(disguised.verdict).toBe('inconclusive');
    expect(disguised.observed).toContain('error body');
  });
});
