const { lex, checkBalanced } = require('../lexer');

describe('lexer', () => {
  it('splits numbers and operators', () => {
    expect(lex('1 + 22')).toEqual(['1', '+', '22']);
  });
  it('rejects unknown characters', () => {
    expect(() => lex('1 $ 2')).toThrowError(/unexpected character \$/);
  });
  describe('parentheses', () => {
    beforeEach(() => { this.src = '(1+(2*3)'; });
    it('accepts nesting', () => {
      expect(lex('((1))').length).toBe(5);
    });
    it('reports unbalanced groups', () => {
      checkBalanced(lex('(1+(2*3)'));
    });
  });
  xit('handles unicode identifiers', () => {});
});
