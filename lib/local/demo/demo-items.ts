/**
 * The demo's item data: a generated item file for the demo markets' item ids (spec api.md "Item data":
 * names, qualities, levels, classes, icon names, vendor prices, stacks, suffix names), the catalogue names
 * of its suffix and pet keys (which generated data never names), and a 56x56 WebP icon per icon name.
 * Deterministic: the same keys give the same names. Every name is given once (issue 25: three items called
 * "Jagged Arrow" read as one item listed three times): an item whose first name is taken gets another of its
 * kind (lib/local/demo/demo-items.ts `Names`).
 */
import type { Kind } from '../../../shared/demo/market-generator';
import { isPetKey, KEY_BASE, splitKey } from '../../../shared/domain/item-key';
import type { GeneratedItemFile, ItemRecord } from '../../../shared/domain/items';
import { type Rgb, twoToneWebp } from './webp';

export const DEMO_BUILD = 'demo-1';
/** The item every caged battle pet is (its species is the key's variant). */
const PET_CAGE = 82_800;
const ICON_SIZE = 56;

/** A catalogue entry `[key, name, quality, iconFileID, flags]` (spec: Catalogue upload rules). */
export type SeenEntry = [key: number, name: string, quality: number, iconFileId: number, flags: number];

export interface DemoItemData {
  file: GeneratedItemFile;
  seen: SeenEntry[];
  icons: Array<{ name: string; webp: Buffer }>;
}

type Shape = 'orb' | 'arrows' | 'flask' | 'sword' | 'shield' | 'cage';

const MATERIALS = [
  'Silken',
  'Ironbark',
  'Emberglass',
  'Frostbitten',
  'Sunleaf',
  'Starlight',
  'Duskwater',
  'Mossy',
  'Verdant',
  'Ashen',
  'Glimmering',
  'Thornroot',
  'Stormcharged',
  'Moonlit',
  'Copperleaf',
  'Saltmarsh',
];
const GOODS: Array<[noun: string, subclass: number]> = [
  ['Thread', 5],
  ['Cloth', 5],
  ['Ore', 7],
  ['Bar', 7],
  ['Herb', 9],
  ['Bloom', 9],
  ['Leather', 6],
  ['Scale', 6],
  ['Essence', 10],
  ['Shard', 12],
  ['Dust', 12],
  ['Crystal', 4],
];
/** Words before a commodity's or a consumable's name once its two-word names are taken. */
const GRADES = ['Fine', 'Coarse', 'Dense', 'Pure', 'Rough', 'Refined', 'Raw', 'Brittle', 'Shimmering', 'Tough', 'Greater', 'Lesser'];
const AMMO_MAKERS = ['Heavy', 'Jagged', 'Balanced', 'Thorium', 'Feathered', 'Barbed', 'Razor', 'Iron', 'Steel', 'Mithril', 'Blackened', 'Whistling'];
const AMMO = ['Shot', 'Arrow', 'Bolt', 'Slug', 'Dart'];
const CONSUMABLES = ['Potion', 'Elixir', 'Flask', 'Tonic', 'Draught', 'Scroll', 'Feast', 'Bandage'];
const VIRTUES = ['Swiftness', 'Fortitude', 'Clarity', 'the Tides', 'Embers', 'Warding', 'the Wilds', 'Focus'];
const MAKERS = [
  'Runed',
  'Stormforged',
  'Gleaming',
  "Warden's",
  'Tarnished',
  'Sturdy',
  'Ornate',
  "Vindicator's",
  'Dreadsteel',
  'Sunwoven',
  'Ancient',
  "Ranger's",
];
const WEAPONS: Array<[noun: string, subclass: number]> = [
  ['Blade', 7],
  ['Staff', 10],
  ['Longbow', 2],
  ['Mace', 4],
  ['Dagger', 15],
  ['Greataxe', 1],
  ['Wand', 19],
];
const ARMOUR: Array<[noun: string, subclass: number]> = [
  ['Helm', 4],
  ['Gauntlets', 4],
  ['Greaves', 3],
  ['Cloak', 1],
  ['Girdle', 2],
  ['Boots', 2],
  ['Spaulders', 3],
  ['Ring', 0],
];
/** Suffix names: `of <noun>`, then `of the <grade> <animal>` / `of <grade> <virtue>` (each suffix id its own). */
const SUFFIXES = [
  'the Bear',
  'the Eagle',
  'the Owl',
  'the Tiger',
  'the Monkey',
  'the Whale',
  'the Falcon',
  'the Wolf',
  'Stamina',
  'Agility',
  'Intellect',
  'Strength',
  'Spirit',
  'the Boar',
  'the Fox',
  'the Stag',
  'the Serpent',
  'the Raven',
  'the Lynx',
  'Endurance',
  'Precision',
  'Haste',
  'Wisdom',
  'Valor',
];
const SUFFIX_GRADES = [
  'Greater',
  'Lesser',
  'Elder',
  'Mighty',
  'Ancient',
  'Swift',
  'Silent',
  'Radiant',
  'Hallowed',
  'Wild',
  'Fierce',
  'Noble',
  'Keen',
  'Stalwart',
  'Valiant',
  'Grim',
  'Brave',
  'Cunning',
  'Patient',
  'Wandering',
  'Hidden',
  'Burning',
  'Frozen',
  'Golden',
];
/** `of the Bear`, or graded `of the Elder Bear` / `of Greater Stamina`. */
const suffixName = (noun: string, grade?: string): string =>
  !grade ? `of ${noun}` : noun.startsWith('the ') ? `of the ${grade} ${noun.slice(4)}` : `of ${grade} ${noun}`;
const PET_MARKS = ['Striped', 'Speckled', 'Fluffy', 'Tiny', 'Curious', 'Sleepy', 'Bold', 'Shy'];
const PET_COLOURS = ['Amber', 'Azure', 'Crimson', 'Dusky', 'Golden', 'Jade', 'Snowy', 'Spotted', 'Twilight', 'Mossy', 'Ashen', 'Starry'];
const PETS = ['Whelpling', 'Kitten', 'Sprite', 'Owlet', 'Mudfin', 'Tortoise', 'Fox Kit', 'Moth', 'Hatchling', 'Wisp', 'Hare', 'Ram', 'Piglet', 'Frogling'];

/** Item quality colours as players know them: poor, common, uncommon, rare, epic. */
const QUALITY_COLOURS: Rgb[] = [
  [157, 157, 157],
  [255, 255, 255],
  [30, 255, 0],
  [0, 112, 221],
  [163, 53, 238],
];
const ICON_BACKGROUND: Rgb = [24, 22, 30];

/** A stable pseudo-random number in [0, 1) per (id, salt). */
function hash(id: number, salt: number): number {
  let h = Math.imul(id ^ Math.imul(salt + 1, 0x9e3779b1), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}
const pick = <T>(list: readonly T[], id: number, salt: number): T => list[Math.floor(hash(id, salt) * list.length)];
const between = (lo: number, hi: number, id: number, salt: number): number => lo + Math.floor(hash(id, salt) * (hi - lo + 1));

interface Made {
  record: ItemRecord;
  shape: Shape;
}

const icon = (shape: Shape, quality: number): string => `demo_${shape}_${quality}`;

/**
 * Hands out names once each: the first of a thing's candidate names not given yet (candidates are
 * deterministic per id), else its first with a number.
 */
class Names {
  private readonly given = new Set<string>();

  take(candidates: Iterable<string>): string {
    let first: string | undefined;
    for (const name of candidates) {
      first ??= name;
      if (!this.given.has(name)) {
        this.given.add(name);
        return name;
      }
    }
    for (let n = 2; ; n++) {
      const name = `${first} ${n}`;
      if (!this.given.has(name)) {
        this.given.add(name);
        return name;
      }
    }
  }
}

/** An id's tries (its picks are salted by `t`): `short` two-word candidates first, then `long` ones with one more word. */
function* tries(short: (salt: number) => string, long: (salt: number) => string): Generator<string> {
  for (let t = 0; t < 16; t++) yield short(100 + t);
  for (let t = 0; t < 48; t++) yield long(200 + t);
}

/** The generated record of an item id of a kind, named by `names`. */
function makeItem(id: number, kind: Kind, names: Names): Made {
  switch (kind) {
    case 'commodity': {
      const [noun, sc] = pick(GOODS, id, 1);
      const q = hash(id, 2) < 0.8 ? 1 : 2;
      // The first candidate is the name this id always had (salt 3); the noun stays (it is the subclass).
      const n = names.take([
        `${pick(MATERIALS, id, 3)} ${noun}`,
        ...tries(
          (t) => `${pick(MATERIALS, id, t)} ${noun}`,
          (t) => `${pick(GRADES, id, t)} ${pick(MATERIALS, id, t + 1000)} ${noun}`,
        ),
      ]);
      return {
        shape: 'orb',
        record: { n, q, il: between(1, 60, id, 4), c: 7, sc, ic: icon('orb', q), sell: between(5, 90, id, 5), st: 200 },
      };
    }
    case 'ammo': {
      const n = names.take(
        tries(
          (t) => `${pick(AMMO_MAKERS, id, t)} ${pick(AMMO, id, t + 1000)}`,
          (t) => `${pick(GRADES, id, t)} ${pick(AMMO_MAKERS, id, t + 1000)} ${pick(AMMO, id, t + 2000)}`,
        ),
      );
      return { shape: 'arrows', record: { n, q: 1, il: between(5, 60, id, 4), c: 6, sc: 2, ic: icon('arrows', 1), sell: 1, st: 1000 } };
    }
    case 'misc':
      return {
        shape: 'flask',
        record: {
          n: names.take([
            `${pick(CONSUMABLES, id, 1)} of ${pick(VIRTUES, id, 3)}`,
            ...tries(
              (t) => `${pick(CONSUMABLES, id, t)} of ${pick(VIRTUES, id, t + 1000)}`,
              (t) => `${pick(GRADES, id, t)} ${pick(CONSUMABLES, id, t + 1000)} of ${pick(VIRTUES, id, t + 2000)}`,
            ),
          ]),
          q: 1,
          il: between(5, 60, id, 4),
          c: 0,
          sc: 1,
          ic: icon('flask', 1),
          sell: between(20, 400, id, 5),
          st: 20,
        },
      };
    default: {
      const weapon = hash(id, 6) < 0.4;
      const [noun, sc] = pick(weapon ? WEAPONS : ARMOUR, id, 1);
      const r = hash(id, 2);
      const q = r < 0.6 ? 2 : r < 0.9 ? 3 : 4;
      const shape: Shape = weapon ? 'sword' : 'shield';
      return {
        shape,
        record: {
          n: names.take([
            `${pick(MAKERS, id, 3)} ${noun}`,
            ...tries(
              (t) => `${pick(MAKERS, id, t)} ${noun}`,
              (t) => `${pick(MAKERS, id, t)} ${pick(MATERIALS, id, t + 1000)} ${noun}`,
            ),
          ]),
          q,
          il: between(20, 70, id, 4),
          c: weapon ? 2 : 4,
          sc,
          ic: icon(shape, q),
          sell: between(100, 9000, id, 5),
          st: 1,
        },
      };
    }
  }
}

/** Item data for every key of the demo's markets (`kinds`: each market generator's key kinds). */
export function demoItemData(kinds: Iterable<ReadonlyMap<number, Kind>>): DemoItemData {
  const items = new Map<number, Made>();
  const names = new Names();
  const suffixNames = new Names();
  const suffixes: Record<string, string> = {};
  const seen: SeenEntry[] = [];
  const variantKeys: Array<[number, Kind]> = [];
  for (const market of kinds) {
    for (const [key, kind] of market) {
      const { item, v } = splitKey(key);
      if (v !== 0) variantKeys.push([key, kind]);
      if (kind === 'pet') {
        if (!items.has(PET_CAGE)) items.set(PET_CAGE, { shape: 'cage', record: { n: 'Pet Cage', q: 1, il: 1, c: 17, sc: 0, ic: icon('cage', 1), st: 1 } });
      } else if (!items.has(item)) {
        items.set(item, makeItem(item, kind, names));
      }
    }
  }
  const done = new Set<number>();
  for (const [key] of variantKeys) {
    if (done.has(key)) continue;
    done.add(key);
    const { item, v } = splitKey(key);
    if (isPetKey(key)) {
      const species = v - 65_536;
      const pet = names.take([
        `${pick(PET_COLOURS, species, 7)} ${pick(PETS, species, 8)}`,
        ...tries(
          (t) => `${pick(PET_COLOURS, species, t)} ${pick(PETS, species, t + 1000)}`,
          (t) => `${pick(PET_MARKS, species, t)} ${pick(PET_COLOURS, species, t + 1000)} ${pick(PETS, species, t + 2000)}`,
        ),
      ]);
      seen.push([key, pet, 3, 0, 4]);
      continue;
    }
    const suffix = v % 2 === 0 ? v / 2 : -(v + 1) / 2;
    const a = Math.abs(suffix);
    suffixes[suffix] ??= suffixNames.take([
      suffixName(pick(SUFFIXES, a, 9)),
      ...tries(
        (t) => suffixName(pick(SUFFIXES, a, t)),
        (t) => suffixName(pick(SUFFIXES, a, t), pick(SUFFIX_GRADES, a, t + 1000)),
      ),
    ]);
    const made = items.get(item);
    if (!made) continue;
    made.record.rs = true;
    seen.push([key, `${made.record.n} ${suffixes[suffix]}`, made.record.q ?? 2, 0, 2]);
  }
  const records: Record<string, ItemRecord> = {};
  const icons = new Map<string, Shape>();
  for (const [id, made] of [...items].sort((a, b) => a[0] - b[0])) {
    records[id] = made.record;
    if (made.record.ic) icons.set(made.record.ic, made.shape);
  }
  const file: GeneratedItemFile = {
    v: 1,
    build: DEMO_BUILD,
    source: 'npm start -- --demo (generated names)',
    suffixes,
    statNames: {},
    bonusLists: {},
    bonusTrees: {},
    items: records,
  };
  return { file, seen: seen.sort((a, b) => a[0] - b[0]), icons: [...icons].map(([name, shape]) => ({ name, webp: drawIcon(shape, Number(name.slice(-1))) })) };
}

/** A shape's pixels on a 56x56 grid, inside a 2-pixel frame. */
function inShape(shape: Shape, x: number, y: number): boolean {
  if (x < 2 || y < 2 || x > ICON_SIZE - 3 || y > ICON_SIZE - 3) return true;
  const cx = x - 27.5;
  const cy = y - 27.5;
  switch (shape) {
    case 'orb':
      return cx * cx + cy * cy <= 17 * 17 && !((cx + 6) ** 2 + (cy + 6) ** 2 <= 16);
    case 'arrows':
      // three arrows: heads widening from y 10 to 20, shafts, fletching below y 40
      return (
        y >= 10 &&
        y <= 46 &&
        [17, 28, 39].some((ax) => {
          const d = Math.abs(x - ax);
          return y < 20 ? d <= (y - 10) / 2.5 : d <= 1 || (y > 40 && d <= 3);
        })
      );
    case 'flask':
      return (cx * cx + (cy - 8) ** 2 <= 14 * 14 && cy > -2) || (Math.abs(cx) <= 4 && cy >= -18 && cy <= 0);
    case 'sword': {
      // along the blade (towards the top right) and across it
      const along = (cx - cy) / Math.SQRT2;
      const across = Math.abs(cx + cy) / Math.SQRT2;
      return (
        (along >= -10 && along <= 20 && across <= 2.5 - Math.max(0, along - 16) / 2) ||
        (along >= -13 && along < -10 && across <= 8) ||
        (along >= -21 && along < -13 && across <= 1.5)
      );
    }
    case 'shield':
      return Math.abs(cx) <= 15 && cy >= -17 && (cy <= 3 || Math.abs(cx) <= 15 - (cy - 3) * 0.8);
    case 'cage':
      return (
        (Math.abs(cx) <= 16 && Math.abs(cy) <= 16 && (Math.abs(Math.abs(cy) - 15) <= 1.5 || Math.round(cx + 16) % 8 <= 1)) ||
        (Math.abs(cx) <= 3 && cy >= -22 && cy <= -16)
      );
  }
}

function drawIcon(shape: Shape, quality: number): Buffer {
  return twoToneWebp(ICON_SIZE, ICON_SIZE, (x, y) => inShape(shape, x, y), QUALITY_COLOURS[quality] ?? QUALITY_COLOURS[1], ICON_BACKGROUND);
}

/** The key's display name in the demo data (variant name for suffix and pet keys). */
export function demoName(data: DemoItemData, key: number): string | undefined {
  return data.seen.find((s) => s[0] === key)?.[1] ?? data.file.items[key % KEY_BASE]?.n;
}
