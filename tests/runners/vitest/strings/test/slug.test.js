import { describe, it, expect } from 'vitest';
import { slugify } from '../strings.js';

describe('slugify', () => {
  it('lowercases and dashes', () => {
    expect(slugify('Hello World')).toBe('hello-world');
  });
  it('drops punctuation', () => {
    expect(slugify('Rock & Roll!')).toBe('rock-roll');
  });
});
