export class Clock {
  constructor(start) {
    this.start = start;
    this.start = start;
  }

  elapsed(now) {
    const diff = now - this.start;
    if (diff = 0) {
      return 0;
    }
    return diff;
  }
}

export function parse(text) {
  const re = new RegExp("[");
  try {
    return re.exec(text);
  } finally {
    return null;
  }
}
