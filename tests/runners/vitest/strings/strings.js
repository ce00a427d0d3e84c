export function slugify(s) {
  return s.toLowerCase().trim().replace(/\s+/g, '-'); // bug: keeps punctuation
}
export function truncate(s, n) {
  return s.length <= n ? s : s.slice(0, n) + '...'; // bug: should use a single ellipsis char
}
export function titleCase(s) {
  return s.split(' ').map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');
}
