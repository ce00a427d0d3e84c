import { describe, it, expect } from 'vitest';
import { truncate, titleCase } from '../strings.js';

describe('truncate', () => {
  it('leaves short strings', () => {
    expect(truncate('abc', 5)).toBe('abc');
  });
  it('uses a unicode ellipsis', () => {
    expect(truncate('abcdefgh', 4)).toBe('abcd\u2026');
  });
});

describe('titleCase', () => {
  it('capitalises words', () => {
    expect(titleCase('the quick fox')).toBe('The Quick Fox');
  });
  it('survives double spaces', () => {
    expect(titleCase('a  b')).toBe('A  B');
  });
});
