// Draws a mancala board as SVG from the rules engine's Layout and a Position (both JSON).
// Shared by the live dashboard and the replay page. No libraries: plain SVG strings.
"use strict";

const Board = (() => {
  const CELL = 112, PAD = 30, R = 44;
  const COUNT_FONT = 15, LABEL_FONT = 13;  // in board units, as drawn on a wide screen
  const COUNT_PX = 12, LABEL_PX = 10;      // the least either may be on the screen: a phone's board must be read
  const SEED_COLOURS = ["#dfe9f3", "#9fd3c7", "#f4d35e", "#ee964b", "#c4a7e7", "#8ecae6", "#f7a1a1", "#b5e48c"];
  const CHIP = { white: "#f8f8f2", yellow: "#f2c230" };
  const colour = (name) => getComputedStyle(document.documentElement).getPropertyValue(`--${name}`).trim();
  const PLAYER = { south: colour("south"), north: colour("north") };  // the stylesheet's, as the LEDs'
  const ILLEGAL = colour("illegal"), CAPTURE = colour("capture");

  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }

  function geometry(layout) {
    const left = layout.pits.some((p) => p.kind === "store" && p.column < 0) ? 1 : 0;
    const right = layout.pits.some((p) => p.kind === "store" && p.column >= layout.columns) ? 1 : 0;
    const width = (layout.columns + left + right) * CELL + 2 * PAD;
    const height = layout.rows * CELL + 2 * PAD;
    const centres = {};
    for (const p of layout.pits) {
      const x = PAD + (p.column + left) * CELL + CELL / 2;
      const y = p.row === null ? PAD + (layout.rows * CELL) / 2 : PAD + p.row * CELL + CELL / 2;
      const ry = p.row === null ? (layout.rows * CELL) / 2 - 12 : R * 0.94;
      const rx = p.row === null ? R * 0.86 : R;
      centres[p.label] = { x, y, rx, ry, pit: p };
    }
    return { width, height, centres };
  }

  // Seeds laid out on a sunflower spiral: evenly packed, never overlapping the rim.
  function seeds(c, count, white, index) {
    if (count <= 0) return "";
    const inner = Math.min(c.rx, c.ry) - 7;
    const spread = Math.min(8.2, inner / Math.sqrt(count));
    const radius = Math.max(2.4, Math.min(6.6, spread * 0.78));
    const stretch = c.ry / c.rx;
    const out = [];
    const shown = Math.min(count, 60);
    for (let k = 0; k < shown; k++) {
      const r = spread * Math.sqrt(k + 0.5);
      const a = k * 2.39996 + index * 0.7;
      const x = c.x + r * Math.cos(a);
      const y = c.y + r * Math.sin(a) * (stretch > 1.5 ? Math.min(stretch, 2.2) : 1);
      let fill;
      if (white !== null && white !== undefined) fill = k < white ? CHIP.white : CHIP.yellow;
      else fill = SEED_COLOURS[(index * 7 + k * 13) % SEED_COLOURS.length];
      out.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${radius.toFixed(1)}" fill="${fill}" stroke="rgba(0,0,0,0.35)" stroke-width="0.8"/>`);
      out.push(`<circle cx="${(x - radius * 0.3).toFixed(1)}" cy="${(y - radius * 0.35).toFixed(1)}" r="${(radius * 0.33).toFixed(1)}" fill="#fff" fill-opacity="0.55"/>`);
    }
    return out.join("");
  }

  function ring(c, extra, colour, width, cls, dash) {
    return `<ellipse class="${cls}" cx="${c.x}" cy="${c.y}" rx="${c.rx + extra}" ry="${c.ry + extra}" fill="none" stroke="${colour}" stroke-width="${width}"${dash ? ` stroke-dasharray="${dash}"` : ""}/>`;
  }

  // The last move's sowing path: a faint line from the lifted pit through every drop, in order.
  function path(g, last) {
    if (!last || !last.from || !last.path || !last.path.length) return "";
    const points = [last.from, ...last.path].map((label) => g.centres[label]).filter(Boolean);
    if (points.length < 2) return "";
    const d = points.map((c, i) => `${i ? "L" : "M"}${c.x.toFixed(1)},${c.y.toFixed(1)}`).join(" ");
    return `<path class="sowing-path" d="${d}" fill="none" stroke="#fff" stroke-opacity="0.55" stroke-width="5" stroke-dasharray="0.1 10" stroke-linejoin="round" stroke-linecap="round" marker-end="url(#arrow)"/>`;
  }

  // How much larger than on a wide screen the counts and labels are drawn, for the board's width on
  // the screen (a phone shows a board of eight columns about a third of its size): at least 1.
  function textGrowth(svg, g) {
    const shown = svg.getBoundingClientRect().width;
    if (!shown) return { count: 1, label: 1 };
    const unit = shown / g.width;  // screen pixels a board unit
    return { count: Math.max(1, COUNT_PX / (COUNT_FONT * unit)), label: Math.max(1, LABEL_PX / (LABEL_FONT * unit)) };
  }

  // A pit's count: in a badge on the rim, so it never hides the seeds; grown larger (a phone), in the
  // pit's middle, the one place a badge that size fits.
  function countBadge(c, p, count, grow) {
    const large = grow > 1.3;
    const r = large ? Math.min(COUNT_FONT * grow, R * 0.72) : COUNT_FONT;
    const bx = large ? c.x : p.kind === "store" ? c.x : c.x + c.rx * 0.78;
    const by = large ? c.y : p.kind === "store" ? c.y + c.ry - 2 : c.y - c.ry * 0.78;
    const font = COUNT_FONT * grow;
    return `<circle cx="${bx}" cy="${by}" r="${r.toFixed(1)}" fill="#12161b" fill-opacity="${large ? 0.78 : 0.88}" stroke="#e9e4da" stroke-opacity="0.3"/>`
      + `<text class="count" x="${bx}" y="${(by + font / 3).toFixed(1)}" text-anchor="middle" font-size="${font.toFixed(1)}" font-weight="700" fill="#f5efe2">${count}</text>`;
  }

  /**
   * opts: {legal: [labels], moverColour, differing: [labels], flash: [labels], last: {from, path, captures},
   *        owners: {label: "south"|"north"}, clickable: bool, expected: {label: "2 → 3" (seen -> should hold)},
   *        names: {south, north} (the players, to tell a hollow's owner in words)}
   */
  function render(svg, layout, position, opts) {
    opts = opts || {};
    const g = geometry(layout);
    const grow = textGrowth(svg, g);
    const legal = new Set(opts.legal || []);
    const differing = new Set(opts.differing || []);
    const flash = new Set(opts.flash || []);
    const captured = {};
    for (const cap of (opts.last && opts.last.captures) || []) captured[cap.pit] = (captured[cap.pit] || 0) + cap.seeds;
    const parts = [];
    parts.push(`<defs>
      <linearGradient id="wood" x1="0" y1="0" x2="1" y2="1">
        <stop offset="0" stop-color="#9a6532"/><stop offset="0.5" stop-color="#7d4f26"/><stop offset="1" stop-color="#62391a"/>
      </linearGradient>
      <radialGradient id="hollow" cx="0.45" cy="0.4" r="0.7">
        <stop offset="0" stop-color="#2a170a"/><stop offset="0.75" stop-color="#3d2412"/><stop offset="1" stop-color="#5b3719"/>
      </radialGradient>
      <pattern id="grain" width="180" height="24" patternUnits="userSpaceOnUse">
        <path d="M0 12 C45 4 90 20 180 10" stroke="#000" stroke-opacity="0.08" stroke-width="2" fill="none"/>
        <path d="M0 22 C60 16 120 26 180 19" stroke="#fff" stroke-opacity="0.04" stroke-width="1.5" fill="none"/>
      </pattern>
      <marker id="arrow" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3.2" markerHeight="3.2" orient="auto">
        <path d="M0,0 L10,5 L0,10 z" fill="#fff" fill-opacity="0.6"/>
      </marker>
    </defs>`);
    parts.push(`<rect x="6" y="6" width="${g.width - 12}" height="${g.height - 12}" rx="46" fill="url(#wood)" stroke="#3b220f" stroke-width="3"/>`);
    parts.push(`<rect x="6" y="6" width="${g.width - 12}" height="${g.height - 12}" rx="46" fill="url(#grain)"/>`);
    if (opts.mover && layout.rows >= 2) {  // a bar along the mover's edge of the board
      const y = opts.mover === "south" ? g.height - 9 : 9;
      parts.push(`<line x1="70" y1="${y}" x2="${g.width - 70}" y2="${y}" stroke="${PLAYER[opts.mover]}" stroke-width="6" stroke-linecap="round"/>`);
    }
    layout.pits.forEach((p, index) => {
      const c = g.centres[p.label];
      const count = position.pits[p.label];
      const white = position.white ? position.white[p.label] : null;
      const cls = "pit" + (opts.clickable && legal.has(p.label) ? " clickable" : "");
      parts.push(`<g class="${cls}" data-label="${esc(p.label)}" data-count="${count}"${legal.has(p.label) ? ' data-legal="1"' : ""}>`);
      if (cls.includes("clickable")) {  // the whole cell is the pit's target, not only its hollow: a finger is wide
        const edge = CELL / 2 - R;  // from the hollow's rim to its cell's edge
        parts.push(`<rect class="target" x="${c.x - CELL / 2}" y="${c.y - c.ry - edge}" width="${CELL}" height="${2 * (c.ry + edge)}" fill="transparent"/>`);
      }
      parts.push(`<ellipse cx="${c.x}" cy="${c.y}" rx="${c.rx}" ry="${c.ry}" fill="url(#hollow)" stroke="#2b1709" stroke-width="2"/>`);
      const owner = opts.owners && opts.owners[p.label];
      if (owner) parts.push(ring(c, -2, PLAYER[owner], 3, "owner-ring", "6 5"));
      parts.push(seeds(c, count, white, index));
      if (legal.has(p.label)) parts.push(ring(c, 5, opts.moverColour || "#fff", 5, "legal-ring"));
      if (opts.last && opts.last.from === p.label) parts.push(ring(c, 9, "#ffffff", 2, "from-ring", "5 6"));
      if (flash.has(p.label) || p.label in captured) parts.push(ring(c, 7, CAPTURE, flash.has(p.label) ? 5 : 3, "capture-ring"));
      if (differing.has(p.label)) parts.push(ring(c, 7, ILLEGAL, 6, "differ-ring"));
      parts.push(countBadge(c, p, count, grow.count));
      const labelFont = LABEL_FONT * grow.label;
      const ly = p.kind === "store" ? c.y - c.ry + 5 + labelFont : c.y + c.ry + 4 + (labelFont - LABEL_FONT) * 0.8;
      const lx = p.kind === "store" ? c.x : c.x - c.rx * 0.8;
      parts.push(`<text class="label" x="${lx}" y="${ly.toFixed(1)}" text-anchor="middle" font-size="${labelFont.toFixed(1)}" fill="#f3dfc1" fill-opacity="0.75">${esc(p.label)}</text>`);
      if (p.label in captured) {
        parts.push(`<text class="captured" x="${c.x - c.rx * 0.78}" y="${c.y - c.ry * 0.7}" text-anchor="middle" font-size="16" font-weight="700" fill="${CAPTURE}">−${captured[p.label]}</text>`);
      }
      if (opts.expected && p.label in opts.expected) {
        // what the board shows -> what it should hold, on a dark tab inside the pit
        const y = c.y + c.ry * 0.62;
        const half = Math.max(30, String(opts.expected[p.label]).length * 4.2 + 8);  // wide enough for "0 → 1 white"
        parts.push(`<rect x="${c.x - half}" y="${y - 13}" width="${2 * half}" height="19" rx="9" fill="#12161b" fill-opacity="0.9" stroke="${ILLEGAL}"/>`);
        parts.push(`<text class="expected" x="${c.x}" y="${y + 1}" text-anchor="middle" font-size="13" font-weight="700" fill="#ff8080">${esc(opts.expected[p.label])}</text>`);
      }
      parts.push("</g>");
    });
    parts.push(path(g, opts.last));
    svg.setAttribute("viewBox", `0 0 ${g.width} ${g.height}`);
    svg.setAttribute("aria-label", words(layout, position, opts));
    svg.innerHTML = parts.join("");
  }

  // The board in words: to a screen reader the picture is one image, and a Nam Nam hollow's owner
  // is otherwise told by its rim's colour alone. Every pit's count in the layout's order, with its
  // white chips and owner where the game has them, and the pits that may be sown.
  function words(layout, position, opts) {
    const storeWord = layout.name.endsWith("+outboxes") ? "outbox" : "store";
    const pits = layout.pits.map((p) => {
      const white = position.white ? position.white[p.label] : null;
      const owner = opts.owners && opts.owners[p.label];
      const ownerName = owner && ((opts.names && opts.names[owner]) || owner);
      return `${p.kind === "store" ? storeWord + " " : ""}${p.label} ${position.pits[p.label]}`
        + (white ? ` (${white} white)` : "") + (owner ? ` (${ownerName}'s)` : "");
    });
    const legal = opts.legal && opts.legal.length ? `; legal moves from: ${opts.legal.join(", ")}` : "";
    return `the board: ${pits.join(", ")}${legal}`;
  }

  return { render, PLAYER, esc };
})();
