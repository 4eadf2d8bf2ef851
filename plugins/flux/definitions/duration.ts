/**
 * ISO-8601 durations (`PT24H`, `P1DT12H`, `P2W`, `PT0.5S`) for `after` transitions. Years and
 * months are calendar units (added in UTC with Date arithmetic); weeks, days and smaller units
 * are fixed lengths (a day is 24 hours).
 */
export interface Duration {
  years: number;
  months: number;
  /** Everything below months, in milliseconds. */
  ms: number;
}

const PATTERN =
  /^P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/;

/** Parses an ISO-8601 duration; undefined when `text` is not one. */
export function parseDuration(text: string): Duration | undefined {
  const m = PATTERN.exec(text);
  if (!m) return undefined;
  const n = (i: number) => (m[i] === undefined ? 0 : Number(m[i]!.replace(',', '.')));
  const ms = ((n(3) * 7 + n(4)) * 24 * 3600 + n(5) * 3600 + n(6) * 60 + n(7)) * 1000;
  return { years: n(1), months: n(2), ms: Math.round(ms) };
}

/** The instant `duration` after `from` (epoch ms). */
export function addDuration(from: number, duration: Duration): number {
  let at = from;
  if (duration.years || duration.months) {
    const d = new Date(from);
    d.setUTCMonth(d.getUTCMonth() + duration.months + duration.years * 12);
    at = d.getTime();
  }
  return at + duration.ms;
}

export function isZero(duration: Duration): boolean {
  return duration.years === 0 && duration.months === 0 && duration.ms === 0;
}
