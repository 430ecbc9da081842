import { describe, expect, it } from 'vitest';
import { clearReadCaches, ReadCache, registerReadCache } from '../../shared/market/read-cache';

describe('ReadCache', () => {
  it('answers what was set, and nothing for a key never set', () => {
    const c = new ReadCache<string>('t', 100, (v) => v.length);
    c.set('a', 'xx');
    expect(c.get('a')).toBe('xx');
    expect(c.get('b')).toBeUndefined();
  });

  it('evicts the least recently used entries once its bytes pass the bound', () => {
    const c = new ReadCache<string>('t', 10, (v) => v.length);
    c.set('a', 'aaaa');
    c.set('b', 'bbbb');
    expect(c.get('a')).toBe('aaaa'); // a is now more recent than b
    c.set('c', 'cccc');
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe('aaaa');
    expect(c.get('c')).toBe('cccc');
    expect(c.heldBytes).toBe(8);
  });

  it('replacing a key counts its bytes once; a value bigger than the bound is not kept', () => {
    const c = new ReadCache<string>('t', 10, (v) => v.length);
    c.set('a', 'aaaa');
    c.set('a', 'aaaaaa');
    expect(c.heldBytes).toBe(6);
    c.set('big', 'x'.repeat(11));
    expect(c.get('big')).toBeUndefined();
    expect(c.get('a')).toBe('aaaaaa');
  });

  it('clearReadCaches empties every cache, registered maps included', () => {
    const c = new ReadCache<number>('t', 100, () => 1);
    const m = new Map([['k', 1]]);
    registerReadCache(m);
    c.set('a', 1);
    clearReadCaches();
    expect(c.size).toBe(0);
    expect(c.heldBytes).toBe(0);
    expect(m.size).toBe(0);
  });
});
