/**
 * The time zone a phone number implies, where it implies one: the number's country (libphonenumber-js, its small
 * metadata, as the recipient check reads numbers) and that country's time zones as Intl knows them (the region's
 * zones of the ICU data Node ships). A country counts as one zone when all its zones keep the same UTC offsets
 * through the year (Germany's Europe/Berlin and Europe/Busingen do): then its first zone is the recipient's. A
 * country whose zones differ (the US, Canada, Russia, Brazil, Australia, Spain with the Canaries, Portugal with
 * the Azores...) implies none, and neither does a number that is not in international form: the caller uses the
 * configured zone then (docs/assumptions.md, "Quiet hours").
 */
import type { CountryCode } from 'libphonenumber-js/min';
import { wallTime } from './quiet-hours';

interface Lib {
  parsePhoneNumberFromString(
    text: string,
  ): { country?: CountryCode; countryCallingCode?: string } | undefined;
  getCountries(): CountryCode[];
  getCountryCallingCode(country: CountryCode): string;
}
let lib: Lib | undefined;
function phoneLib(): Lib {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  lib ??= require('libphonenumber-js/min') as Lib;
  return lib;
}

/** Countries by calling code, made once (for numbers whose country the metadata cannot tell: +44 7700 900...). */
let byCallingCode: Map<string, CountryCode[]> | undefined;
function countriesOf(code: string): CountryCode[] {
  if (!byCallingCode) {
    byCallingCode = new Map();
    for (const c of phoneLib().getCountries()) {
      const k = phoneLib().getCountryCallingCode(c);
      byCallingCode.set(k, [...(byCallingCode.get(k) ?? []), c]);
    }
  }
  return byCallingCode.get(code) ?? [];
}

/** A region's time zones as Intl lists them (the getter of Node 20, the method of later versions); [] unknown. */
function regionZones(country: string): string[] {
  try {
    const locale = new Intl.Locale(`und-${country}`) as Intl.Locale & {
      timeZones?: string[];
      getTimeZones?: () => string[];
    };
    const zones = typeof locale.getTimeZones === 'function' ? locale.getTimeZones() : locale.timeZones;
    return Array.isArray(zones) ? zones.filter((z) => typeof z === 'string') : [];
  } catch {
    return [];
  }
}

const WEEK = 7 * 24 * 3_600_000;

/** Whether two zones keep the same UTC offset at every week of the year from `from`. */
function sameOffsets(a: string, b: string, from: number): boolean {
  for (let t = from; t < from + 53 * WEEK; t += WEEK) {
    if (wallTime(t, a) - t !== wallTime(t, b) - t) return false;
  }
  return true;
}

/** The one zone of these countries, or null; per set of countries, made once. */
const zoneCache = new Map<string, string | null>();

function oneZone(countries: readonly string[]): string | undefined {
  const id = countries.join(',');
  const known = zoneCache.get(id);
  if (known !== undefined) return known ?? undefined;
  const zones = [...new Set(countries.flatMap(regionZones))];
  let zone: string | null = zones[0] ?? null;
  // From the start of this year: the offsets of a whole year, clock changes included.
  const from = Date.UTC(new Date().getUTCFullYear(), 0, 1, 12);
  try {
    if (zone !== null && !zones.every((z) => z === zone || sameOffsets(zone!, z, from))) zone = null;
  } catch {
    zone = null;
  }
  zoneCache.set(id, zone);
  return zone ?? undefined;
}

/** Numbers seen recently and their zone (a campaign texts the same numbers again): bounded. */
const numberCache = new Map<string, string | null>();
const NUMBER_CACHE_MAX = 5000;

/**
 * The zone a number implies: `key` is its digits in international form without `+` (the number key every
 * comparison of numbers uses). Undefined when the number's country has several zones or cannot be told.
 */
export function zoneOfNumber(key: string): string | undefined {
  if (!/^\d{6,17}$/.test(key)) return undefined;
  const cached = numberCache.get(key);
  if (cached !== undefined) return cached ?? undefined;
  let zone: string | undefined;
  try {
    const parsed = phoneLib().parsePhoneNumberFromString(`+${key}`);
    const countries = parsed?.country
      ? [parsed.country]
      : parsed?.countryCallingCode
        ? countriesOf(parsed.countryCallingCode)
        : [];
    zone = countries.length > 0 ? oneZone(countries) : undefined;
  } catch {
    zone = undefined;
  }
  if (numberCache.size >= NUMBER_CACHE_MAX) numberCache.delete(numberCache.keys().next().value as string);
  numberCache.set(key, zone ?? null);
  return zone;
}
