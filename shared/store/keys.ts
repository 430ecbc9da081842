/**
 * Single-table key formats (pk / sk strings), in one file. Every adapter builds keys here and nowhere else.
 * Sections are owned by concern; `ttl` (seconds) is set on items that expire.
 */

// ── Identity and accounts ────────────────────────────────────────────────────────────────

// ── Market data (packed pages, seq, scan log, books) ─────────────────────────────────────

// ── Files, capabilities and live sockets ─────────────────────────────────────────────────

// ── Settings (watchlist, alerts, boards, push) ───────────────────────────────────────────
