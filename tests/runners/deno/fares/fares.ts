export function fare(km: number, night = false): number {
  const base = 2.5 + km * 1.2;
  return Math.round((night ? base * 1.25 : base) * 100) / 100;
}

export function zones(stops: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of stops) out[s[0]] = (out[s[0]] ?? 0) + 1;
  return out;
}

export function parseTicket(code: string): { line: number; seat: string } {
  const [line, seat] = code.split("-");
  if (!seat) throw new RangeError(`ticket ${code} has no seat`);
  return { line: Number(line), seat };
}
