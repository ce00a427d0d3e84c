// zora capture project (issue 46): a duty roster, failing assertions with labels of their own.
import { test } from 'zora';

const names = ['ana', 'ben', 'cy'];
const onDuty = (day) => names[day % 2];
const swap = (list) => [...list].reverse().slice(1);

test('rotation', (t) => {
  t.eq(onDuty(0), 'ana', 'the week starts with ana');
  t.eq(onDuty(2), 'cy', 'the third day goes to cy');
});

test('swaps', (t) => {
  t.eq(swap(['a', 'b']), ['b', 'a'], 'a swap keeps both people');
  t.eq(swap([]).length, 0, 'an empty roster swaps to nothing');
  t.notEq(swap(['x']), [], 'a single name is never dropped');
});

test('import', (t) => {
  const parse = (line) => {
    if (!line.includes(',')) throw new TypeError(`roster line has no comma: ${JSON.stringify(line)}`);
    return line.split(',');
  };
  t.eq(parse('ana'), ['ana'], 'a single name parses');
});
