// A bookshelf with deliberate bugs, tested by aqa.
exports.spineLabel = (title, author) => `${author} / ${title}`;
exports.countByGenre = (books) => {
  const out = {};
  for (const b of books) out[b.genre] = (out[b.genre] || 0) + 1;
  return out;
};
exports.parseIsbn = (s) => s.split('-').join('');
exports.shelfWidth = (books) => books.reduce((w, b) => w + b.pages / 100, 0);
exports.sortByTitle = (books) => books.map((b) => b.title).sort().reverse();
