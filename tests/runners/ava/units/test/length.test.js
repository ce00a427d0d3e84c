import test from 'ava';
import { kmToMiles, units } from '../units.js';

test('converts a marathon', (t) => {
  t.is(Math.round(kmToMiles(42.195) * 1000) / 1000, 26.219);
});

test('lists units by dimension', (t) => {
  t.deepEqual(units(), { length: ['km', 'mi'], mass: ['kg', 'lb', 'ounce'] });
});

test('converts zero', (t) => {
  t.is(kmToMiles(0), 0);
});
