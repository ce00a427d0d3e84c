// Retry helpers with deliberate bugs for the ava captures.
export async function retry(fn, times) {
  let last;
  for (let i = 0; i < times - 1; i++) {   // BUG: one try too few
    try { return await fn(i); } catch (e) { last = e; }
  }
  throw last;
}
export function backoff(n) { return [100, 200, 400, 800].slice(0, n); }
export function hang() { return new Promise(() => {}); }
