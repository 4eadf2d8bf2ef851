/**
 * `last_token_issued_date` in the seed's form: `Saturday, November 21, 2026 2:05:02 AM UTC`
 * (weekday, month name, day, year, 12-hour time, zone abbreviation) in `server.timezone`. Built
 * from parts because ICU versions differ in the glue ("at", narrow no-break spaces).
 */
export class IssueDateFormatter {
  private readonly format: Intl.DateTimeFormat;
  // formatToParts costs microseconds; every grant in the same second shows the same text.
  private cachedSecond = NaN;
  private cachedText = '';

  constructor(timeZone: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'long',
      month: 'long',
      day: 'numeric',
      year: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      second: '2-digit',
      hour12: true,
      timeZoneName: 'short',
    });
  }

  formatDate(epochMs: number): string {
    const second = Math.floor(epochMs / 1000);
    if (second !== this.cachedSecond) {
      this.cachedText = this.render(epochMs);
      this.cachedSecond = second;
    }
    return this.cachedText;
  }

  private render(epochMs: number): string {
    const p: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
    for (const part of this.format.formatToParts(epochMs)) p[part.type] = part.value;
    return (
      `${p.weekday}, ${p.month} ${p.day}, ${p.year} ` +
      `${p.hour}:${p.minute}:${p.second} ${p.dayPeriod} ${p.timeZoneName}`
    );
  }
}
