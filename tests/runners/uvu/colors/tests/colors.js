import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hexToRgb, named, lighten } from '../colors.js';

const conv = suite('convert');
conv('hex to rgb', () => {
  assert.equal(hexToRgb('#0a0b0d'), [10, 11, 13], 'blue channel of #0a0b0d');
});
conv('named colours', () => {
  assert.is(named('teal'), '#008080');
  assert.is(named('rebeccapurple'), '#663399');
});
conv.run();

const adjust = suite('adjust');
adjust('lighten clamps at 255', () => {
  assert.ok(lighten([250, 0, 0])[0] <= 255, 'red channel overflowed past 255');
});
adjust('lighten a dark grey', () => {
  assert.equal(lighten([10, 10, 10]), [50, 50, 50]);
});
adjust.run();
