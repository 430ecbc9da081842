/**
 * Text from uploaders (catalogue names) is shown on public pages, in Markdown read by people and by software
 * agents. One account must not be able to break a line, reorder what readers see or hide characters in it,
 * so these characters are refused on upload and made visible (U+FFFD) wherever a name is rendered, whatever
 * its source (generated item data too). Pure.
 *
 * Refused: C0 controls (tab, line feed and carriage return included), DEL and C1 controls; the Unicode
 * bidirectional controls (LRM, RLM, ALM; embeddings, overrides and their pop; isolates and their pop), which
 * reorder the text around them; the line and paragraph separators U+2028 and U+2029, which end lines in some
 * readers (and JavaScript); the byte order mark U+FEFF (an invisible zero-width character mid-text); the
 * interlinear annotation controls U+FFF9..U+FFFB; and lone surrogates, which no encoding can carry.
 */

/** The refused characters as a regular expression character class (lone surrogates aside). */
export const UNSAFE_CHAR_CLASS = '[\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029\\ufeff\\ufff9-\\ufffb]';
const UNSAFE_SOURCE =
  UNSAFE_CHAR_CLASS +
  // A high surrogate without its low half, or a low one without its high half.
  '|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';
const UNSAFE = new RegExp(UNSAFE_SOURCE);
const UNSAFE_ALL = new RegExp(UNSAFE_SOURCE, 'g');
const REPLACEMENT = '\ufffd';

/** Whether `s` holds a character refused in uploaded text (see the module comment), or a lone surrogate. */
export const hasUnsafeText = (s: string): boolean => UNSAFE.test(s);

/** `s` with every refused character (and lone surrogate) shown as U+FFFD: one line, read in its own order. */
export const inertText = (s: string): string => s.replace(UNSAFE_ALL, REPLACEMENT);

/** The short reason an upload gives for refusing such text (400 `bad_request`). */
export const UNSAFE_TEXT_MESSAGE = 'must not contain control characters, line breaks or bidirectional formatting characters';
