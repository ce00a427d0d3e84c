const { parseCsvLine } = require('../parse');

describe('CSV', () => {
  describe('parseCsvLine', () => {
    it('splits plain fields', () => {
      expect(parseCsvLine('a,b,c')).toEqual(['a', 'b', 'c']);
    });
    it('keeps quoted commas together', () => {
      expect(parseCsvLine('"Doe, Jane",42')).toEqual(['Doe, Jane', '42']);
    });
  });
});
