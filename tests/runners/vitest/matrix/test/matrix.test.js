import { describe, test, expect } from 'vitest';
import { transpose, multiply, det2, loadMatrix } from '../matrix.js';

describe('Matrix', () => {
  test('transposes 2x3', () => {
    expect(transpose([[1, 2, 3], [4, 5, 6]])).toEqual([[1, 4], [2, 5], [3, 6]]);
  });
  test('multiplies identity', () => {
    expect(multiply([[1, 0], [0, 1]], [[7, 8], [9, 10]])).toEqual([[7, 8], [9, 10]]);
  });
  describe('determinant', () => {
    test('of a 2x2', () => {
      expect(det2([[3, 8], [4, 6]])).toBe(-14);
    });
  });
  test('loads fixture from disk', async () => {
    const m = await loadMatrix('rotation');
    expect(m).toHaveLength(3);
  });
  test('transpose of empty matrix', () => {
    expect(transpose([])).toEqual([]);
  });
});
