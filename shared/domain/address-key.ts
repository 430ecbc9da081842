/**
 * The key per-address limits count under (DESIGN: anonymous callers are limited per IP). An IPv4 caller is
 * its address; an IPv6 caller is its /64, because one subscriber is routinely handed a whole /64 and can
 * pick a fresh address from it for every request. Pure: no I/O, no node modules.
 */

/** What every unparsable address counts under: one shared key, so garbage never buys a fresh limit. */
export const INVALID_ADDRESS_KEY = 'invalid';

const IPV4_PART = /^(0|[1-9][0-9]{0,2})$/;
const HEXTET = /^[0-9a-fA-F]{1,4}$/;

/** The four octets of a dotted-quad IPv4 address (no leading zeros, each 0..255), or null. */
function ipv4Octets(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => IPV4_PART.test(p))) return null;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

/** The eight 16-bit groups of an IPv6 address (`::` compression and an IPv4 tail allowed), or null. */
function ipv6Groups(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const side = (s: string): number[] | null => {
    if (s === '') return [];
    const groups: number[] = [];
    const parts = s.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i];
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = ipv4Octets(p);
        if (!v4) return null;
        groups.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (HEXTET.test(p)) {
        groups.push(Number.parseInt(p, 16));
      } else {
        return null;
      }
    }
    return groups;
  };
  const head = side(halves[0]);
  const tail = halves.length === 2 ? side(halves[1]) : [];
  if (!head || !tail) return null;
  // An IPv4 tail may only end the address.
  if (halves.length === 2 && halves[0].includes('.')) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : null;
}

/**
 * The rate-limit key of a caller's IP address: IPv4 as written (`203.0.113.7`); IPv4-mapped IPv6
 * (`::ffff:203.0.113.7`) as the IPv4 address it maps; any other IPv6 address as its /64 in compressed
 * lower-case form (`2001:db8:0:1::/64`). Brackets and a zone id (`%eth0`) are ignored; anything else is
 * {@link INVALID_ADDRESS_KEY}.
 */
export function addressKey(ip: string): string {
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const v4 = ipv4Octets(text);
  if (v4) return v4.join('.');
  if (!text.includes(':')) return INVALID_ADDRESS_KEY;
  const g = ipv6Groups(text);
  if (!g) return INVALID_ADDRESS_KEY;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff].join('.');
  const prefix = g.slice(0, 4);
  // Drop trailing zero groups of the prefix (the compressed form ends in `::` anyway).
  while (prefix.length > 0 && prefix[prefix.length - 1] === 0) prefix.pop();
  return `${prefix.map((x) => x.toString(16)).join(':')}::/64`;
}

/**
 * The key the meter of unknown API keys counts an address under (issue 23 point 4): an {@link addressKey}
 * widened for IPv6 to its /48 (`2001:db8:0:1::/64` → `2001:db8::/48`), the block a single site is routinely
 * given, so a flood from one allocation shares one limit; IPv4 and the invalid key stay as they are. Only
 * that meter keys by /48: the per-address API limits keep the /64.
 */
export function lookupAddressKey(key: string): string {
  if (!key.endsWith('::/64')) return key;
  const head = key.slice(0, -'::/64'.length);
  const prefix = (head === '' ? [] : head.split(':')).slice(0, 3);
  while (prefix.length > 0 && Number.parseInt(prefix[prefix.length - 1], 16) === 0) prefix.pop();
  return `${prefix.join(':')}::/48`;
}

/** The IP of an `address:port` pair as CloudFront writes `CloudFront-Viewer-Address` (IPv6 has no brackets there). */
export function viewerAddressIp(value: string): string {
  const i = value.lastIndexOf(':');
  return i > 0 ? value.slice(0, i) : value;
}

/**
 * The caller's rate-limit address key: from `CloudFront-Viewer-Address` only when the request is known to
 * come through CloudFront (anyone calling an origin directly can send that header), else the source IP.
 */
export function callerAddressKey(headers: Record<string, string>, sourceIp: string, fromEdge: boolean): string {
  const viewer = headers['cloudfront-viewer-address'];
  return addressKey(fromEdge && viewer ? viewerAddressIp(viewer) : sourceIp);
}
