/** Money as members read it: integer micro-dollars formatted as US dollars in their language. Pure. */
import type { Language } from '../i18n/index.ts';

const formats = new Map<Language, Intl.NumberFormat>();

/**
 * `micros` micro-dollars as US dollars in `language` (`$2.50`, `2,50 $`, `$0.000008`): at least
 * cents, and every micro-dollar there is, so a small bill never reads as nothing.
 */
export function formatMoney(language: Language, micros: number): string {
  let format = formats.get(language);
  if (format === undefined) {
    format = new Intl.NumberFormat(language, {
      style: 'currency',
      currency: 'USD',
      minimumFractionDigits: 2,
      maximumFractionDigits: 6,
    });
    formats.set(language, format);
  }
  // Division happens only here, for display: sums stay in integer micro-dollars.
  return format.format(micros / 1_000_000);
}

/**
 * Dollars as typed (`2.5`) in integer micro-dollars, rounded to the nearest; a positive amount
 * is at least one (a budget of 0 means none, so a tiny one must not turn into that).
 */
export function dollarsToMicros(dollars: number): number {
  const micros = Math.round(dollars * 1_000_000);
  return dollars > 0 ? Math.max(1, micros) : micros;
}
