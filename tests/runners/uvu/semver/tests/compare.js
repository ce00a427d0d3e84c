import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compare, bump } from '../semver.js';

const order = suite('order');
order('orders numerically', () => {
  assert.is(compare('1.10.0', '1.9.0'), 1, '1.10.0 sorts after 1.9.0');
});
order('equal versions', () => {
  assert.is(compare('3.1.4', '3.1.4'), 0);
});
order.run();

const bumping = suite('bump');
bumping('minor resets patch', () => {
  assert.is(bump('1.4.7', 'minor'), '1.5.0');
});
bumping('patch', () => {
  assert.is(bump('1.4.7', 'patch'), '1.4.8');
});
bumping.run();
