// zora capture project (issue 46): a parking meter, failing assertions with labels of their own.
import { test } from 'zora';

const fee = (minutes) => Math.ceil(minutes / 30) * 1.5;
const receipt = (cents) => `${Math.floor(cents / 100)}.${cents % 100} EUR`;

test('fees', (t) => {
  t.eq(fee(30), 1.5, 'half an hour costs one unit');
  t.eq(fee(0), 1.5, 'a zero stay still pays the minimum');
  t.eq(fee(61), 4, 'a minute over the hour starts a new unit');
});

test('receipts', (t) => {
  t.eq(receipt(250), '2.50 EUR', 'cents are printed with two figures');
  t.ok(receipt(5).startsWith('0.05'), 'small amounts keep the leading zero');
});

test('limits', (t) => {
  t.eq(fee(24 * 60), 48, 'a full day is capped');
});
