/**
 * Prices for people: copper in gold, silver and copper (10,000 copper = 1 gold, 100 copper = 1 silver), as
 * text, as short axis labels and as coloured HTML. Pure.
 */

const units = (copper: number): [gold: number, silver: number, copper: number] => [
  Math.floor(copper / 10000),
  Math.floor((copper % 10000) / 100),
  copper % 100,
];

/** Copper as `12,345g 67s 89c` (10,000 copper = 1 gold), leading zero units left out. */
export function formatCopper(copper: number): string {
  const [g, s, c] = units(copper);
  const parts: string[] = [];
  if (g > 0) parts.push(`${g.toLocaleString('en-US')}g`);
  if (g > 0 || s > 0) parts.push(`${s}s`);
  parts.push(`${c}c`);
  return parts.join(' ');
}

/** An axis label: only the units that are not zero (`12g 50s`, `75c`), `0c` for nothing. */
export function copperLabel(copper: number): string {
  const [g, s, c] = units(copper);
  const parts: string[] = [];
  if (g > 0) parts.push(`${g.toLocaleString('en-US')}g`);
  if (s > 0) parts.push(`${s}s`);
  if (c > 0) parts.push(`${c}c`);
  return parts.length > 0 ? parts.join(' ') : '0c';
}

/** `formatCopper` as HTML, each unit in a span of its coin's class (`g`, `s`, `c`); digits only, nothing to escape. */
export function copperHtml(copper: number): string {
  return formatCopper(copper)
    .split(' ')
    .map((part) => `<span class="${part.slice(-1)}">${part}</span>`)
    .join(' ');
}
