import test from 'ava';
import { celsius, parseSize, strictUnit } from '../units.js';

test('freezing point', (t) => {
  t.is(celsius(32), 0);
});

test('parses gigabytes', (t) => {
  t.deepEqual(parseSize('3GB'), { value: 3, unit: 'GB' });
});

test('rejects unknown unit', (t) => {
  t.throws(() => strictUnit('furlong'), { message: /unknown unit furlong/ });
});
