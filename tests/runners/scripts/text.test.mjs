import { test } from 'node:test';
import assert from 'node:assert/strict';
test('upper', () => assert.equal('a'.toUpperCase(), 'B'));
test('trims', () => assert.equal(' x '.trim(), 'x'));
