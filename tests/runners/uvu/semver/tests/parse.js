import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from '../semver.js';

test('parses a plain version', () => {
  assert.equal(parse('1.2.3'), { major: 1, minor: 2, patch: 3 });
});

test('parses a pre-release', () => {
  assert.equal(parse('2.0.0-rc.1'), { major: 2, minor: 0, patch: 0, pre: 'rc.1' });
});

test.run();
