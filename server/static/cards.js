// Cards and suit shapes, drawn by the project as SVG (no images, no fonts beyond the system's).
// cardSVG("7H") -> an <svg> string; suitSVG("S") -> a small suit sign.
"use strict";

const SUIT_PATHS = {
  H: '<path d="M50 90 C24 70 5 53 5 31 C5 15 17 5 30 5 C40 5 47 11 50 20 C53 11 60 5 70 5 C83 5 95 15 95 31 C95 53 76 70 50 90 Z"/>',
  D: '<path d="M50 3 L88 50 L50 97 L12 50 Z"/>',
  S: '<path d="M50 4 C62 24 95 40 95 62 C95 76 84 84 72 84 C63 84 57 80 53 73 C54 83 58 91 67 97 L33 97 C42 91 46 83 47 73 C43 80 37 84 28 84 C16 84 5 76 5 62 C5 40 38 24 50 4 Z"/>',
  C: '<circle cx="50" cy="27" r="21"/><circle cx="27" cy="58" r="21"/><circle cx="73" cy="58" r="21"/>' +
     '<circle cx="50" cy="52" r="12"/><path d="M46 55 C46 77 42 88 32 97 L68 97 C58 88 54 77 54 55 Z"/>',
};
const RED_SUITS = new Set(["H", "D"]);
// pip centres in a 100x140 field (x, y, flipped) for the number cards
const PIPS = {
  A: [[50, 70, 0]],
  2: [[50, 22, 0], [50, 118, 1]],
  3: [[50, 22, 0], [50, 70, 0], [50, 118, 1]],
  4: [[28, 22, 0], [72, 22, 0], [28, 118, 1], [72, 118, 1]],
  5: [[28, 22, 0], [72, 22, 0], [50, 70, 0], [28, 118, 1], [72, 118, 1]],
  6: [[28, 22, 0], [72, 22, 0], [28, 70, 0], [72, 70, 0], [28, 118, 1], [72, 118, 1]],
  7: [[28, 22, 0], [72, 22, 0], [50, 46, 0], [28, 70, 0], [72, 70, 0], [28, 118, 1], [72, 118, 1]],
  8: [[28, 22, 0], [72, 22, 0], [50, 46, 0], [28, 70, 0], [72, 70, 0], [50, 94, 1], [28, 118, 1], [72, 118, 1]],
  9: [[28, 22, 0], [72, 22, 0], [28, 54, 0], [72, 54, 0], [50, 70, 0], [28, 86, 1], [72, 86, 1], [28, 118, 1], [72, 118, 1]],
  10: [[28, 22, 0], [72, 22, 0], [50, 40, 0], [28, 56, 0], [72, 56, 0], [28, 84, 1], [72, 84, 1], [50, 100, 1], [28, 118, 1], [72, 118, 1]],
};

function parseCard(code) {
  const m = /^(A|[2-9]|10|J|Q|K)([SHDC])$/.exec(code || "");
  return m ? { rank: m[1], suit: m[2] } : null;
}

function suitGlyph(suit, x, y, size, flip) {
  const s = size / 100;
  const rot = flip ? ` rotate(180 50 50)` : "";
  return `<g transform="translate(${x - size / 2} ${y - size / 2}) scale(${s})${rot}">${SUIT_PATHS[suit]}</g>`;
}

function suitSVG(suit, cls = "suit") {
  const colour = RED_SUITS.has(suit) ? "red" : "black";
  return `<svg class="${cls} ${colour}" viewBox="0 0 100 100" aria-hidden="true">${SUIT_PATHS[suit] || ""}</svg>`;
}

function faceArt(rank, suit) {
  // a framed court card: big letter, a crown for the king, the suit beneath
  const crown = rank === "K" ? '<path class="ink" d="M34 44 L38 28 L46 38 L50 24 L54 38 L62 28 L66 44 Z"/>' : "";
  const band = rank === "Q" ? '<circle class="ink" cx="50" cy="34" r="7"/>' : rank === "J" ? '<rect class="ink" x="43" y="28" width="14" height="10" rx="2"/>' : "";
  return `<rect x="20" y="20" width="60" height="100" rx="6" class="frame"/>${crown}${band}` +
    `<text x="50" y="86" text-anchor="middle" class="face">${rank}</text>` + suitGlyph(suit, 50, 104, 18, 0);
}

function cardSVG(code, opts = {}) {
  const c = parseCard(code);
  if (!c) return `<svg class="card unknown" viewBox="0 0 100 140"><rect x="2" y="2" width="96" height="136" rx="9" class="back"/><text x="50" y="82" text-anchor="middle" class="face">?</text></svg>`;
  const colour = RED_SUITS.has(c.suit) ? "red" : "black";
  const inDeck = !["8", "9", "10"].includes(c.rank);
  let middle = "";
  if (["J", "Q", "K"].includes(c.rank)) middle = faceArt(c.rank, c.suit);
  else for (const [x, y, f] of PIPS[c.rank]) middle += suitGlyph(c.suit, x, y, c.rank === "A" ? 44 : 20, f);
  const corner = `<text x="11" y="22" text-anchor="middle" class="idx">${c.rank}</text>` + suitGlyph(c.suit, 11, 33, 12, 0);
  const extra = (opts.cls || "") + (inDeck ? "" : " stray") + (opts.uncertain ? " uncertain" : "");
  const title = opts.title ? `<title>${opts.title}</title>` : "";
  return `<svg class="card ${colour} ${extra}" viewBox="0 0 100 140" role="img" data-card="${code}">${title}` +
    `<rect x="1.5" y="1.5" width="97" height="137" rx="9" class="paper"/>` + middle + corner +
    `<g transform="rotate(180 50 70)">${corner}</g>` +
    (opts.uncertain ? `<g class="qmark"><circle cx="84" cy="16" r="13"/><text x="84" y="22" text-anchor="middle">?</text></g>` : "") +
    `</svg>`;
}

function cardBackSVG() {
  return `<svg class="card backside" viewBox="0 0 100 140"><rect x="1.5" y="1.5" width="97" height="137" rx="9" class="back"/>` +
    `<rect x="10" y="10" width="80" height="120" rx="6" class="back-inner"/></svg>`;
}

window.Cards = { cardSVG, suitSVG, parseCard, cardBackSVG, RED_SUITS };
