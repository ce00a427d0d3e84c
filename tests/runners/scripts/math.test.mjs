import { test } from 'node:test';
import assert from 'node:assert/strict';
test('adds', () => assert.equal(2 + 2, 5));
test('subtracts', () => assert.equal(3 - 1, 2));
