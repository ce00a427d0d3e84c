// A tiny lexer with deliberate bugs for the jasmine captures.
function lex(src) {
  const out = [];
  for (const m of src.matchAll(/\s*(\d+|[a-z]+|[+*()-])/g)) out.push(m[1]);
  return out;                                   // BUG: silently drops unknown chars
}
function checkBalanced(tokens) {
  let depth = 0;
  for (const t of tokens) depth += t === '(' ? 1 : t === ')' ? -1 : 0;
  if (depth) throw new SyntaxError(`unbalanced parentheses: ${depth} left open\n  at token 5 of "(1+(2*3)"\n  hint: close the group opened at column 4`);
}
module.exports = { lex, checkBalanced };
