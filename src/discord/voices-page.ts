/**
 * `/voices` paging, pure: which voices a page shows, and the custom ids its buttons and menu
 * carry (the whole state of a list lives in them: Discord sends back only the id).
 */
import type { Model } from '../tts/index.ts';

/** Voices on one page of `/voices`. */
export const VOICES_PAGE_SIZE = 10;
/** Discord refuses custom ids longer than this. */
export const MAX_CUSTOM_ID_LENGTH = 100;

const PREFIX = 'voices';
const PREVIEW = 'preview';

/** What a `/voices` list shows: a model's voices, optionally of one gender and accent. */
export interface VoicesFilter {
  readonly model: Model;
  /** Empty for any. */
  readonly gender: string;
  /** Empty for any. */
  readonly accent: string;
}

/** A list and the page of it a button leads to. */
export interface VoicesPageState extends VoicesFilter {
  readonly page: number;
}

/** One page of a list: its index after clamping, how many pages there are, and what it shows. */
export interface Page<T> {
  readonly index: number;
  readonly pages: number;
  readonly shown: readonly T[];
}

/** The `requested` page of `items` (clamped to the pages there are; an empty list has one page). */
export function pageOf<T>(
  items: readonly T[],
  requested: number,
  size: number = VOICES_PAGE_SIZE,
): Page<T> {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const index = Math.min(Math.max(0, Math.trunc(requested) || 0), pages - 1);
  return { index, pages, shown: items.slice(index * size, (index + 1) * size) };
}

/**
 * The custom id of a page button: `voices:<model>:<page>:<gender>:<accent>`, with `\` and `:`
 * in the filters escaped by `\`. Filters of up to 20 characters (the options' limit) and pages
 * below 1000 always fit in 100 characters; anything longer loses the end of its filters.
 */
export function formatPageId(state: VoicesPageState): string {
  let gender = [...state.gender];
  let accent = [...state.accent];
  for (;;) {
    const id = [
      PREFIX,
      state.model,
      String(state.page),
      escapeField(gender.join('')),
      escapeField(accent.join('')),
    ].join(':');
    if (id.length <= MAX_CUSTOM_ID_LENGTH) return id;
    if (accent.length > 0) accent = accent.slice(0, -1);
    else if (gender.length > 0) gender = gender.slice(0, -1);
    else return id.slice(0, MAX_CUSTOM_ID_LENGTH);
  }
}

/** Reads a page button's custom id; what it cannot read falls back to the first page of `base`. */
export function parsePageId(id: string): VoicesPageState {
  const [, model, pageText = '', gender = '', accent = ''] = splitFields(id);
  return {
    model: modelOf(model),
    page: /^\d+$/.test(pageText) ? Number(pageText) : 0,
    gender,
    accent,
  };
}

/** The custom id of a page's preview menu: `voices:preview:<model>`. */
export function formatPreviewMenuId(model: Model): string {
  return [PREFIX, PREVIEW, model].join(':');
}

/** The model a preview menu's custom id names (`base` when it names none). */
export function parsePreviewMenuId(id: string): Model {
  return modelOf(splitFields(id)[2]);
}

function modelOf(text: string | undefined): Model {
  return text === 'advance' ? 'advance' : 'base';
}

function escapeField(text: string): string {
  return text.replace(/[\\:]/g, (c) => `\\${c}`);
}

/** Splits at unescaped `:` and unescapes each field (a lone trailing `\` is kept as it is). */
function splitFields(id: string): string[] {
  const fields: string[] = [];
  let field = '';
  for (let i = 0; i < id.length; i++) {
    const c = id.charAt(i);
    if (c === '\\' && i + 1 < id.length) {
      field += id.charAt(++i);
    } else if (c === ':') {
      fields.push(field);
      field = '';
    } else {
      field += c;
    }
  }
  fields.push(field);
  return fields;
}
