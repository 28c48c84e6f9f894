// Peach hibiscus with a bud and leaves, painted in loose layered watercolour.
// Layers: background wash -> stems -> leaves -> bud -> petals -> eye -> stamen.

const PALETTE = {
  wash: '#c8d6ad',
  stem: '#4d7634',
  leafLight: '#79a653',
  leafDark: '#3f6f31',
  peach: '#f5905f',
  coral: '#ec6c52',
  rim: '#e2573f',
  vein: '#c9435f',
  eye: '#a11d45',
  eyeDeep: '#6a0a2c',
  throat: '#3d0619',
  column: '#b02848',
  pollen: '#eea41c',
  stigma: '#8a0a26',
};

function setup() { createCanvas(600, 600, WEBGL); brush.scaleBrushes(1.5); angleMode(DEGREES); noLoop(); }

// Paint a single translucent wash through a list of [x, y] points.
function paint(pts, hex, alpha, bleed = 0.3, curve = 0.5, texture = 0.55) {
  brush.fill(hex, alpha);
  brush.fillBleed(bleed);
  brush.fillTexture(texture, 0.5);
  brush.beginShape(curve);
  for (const [x, y] of pts) brush.vertex(x, y);
  brush.endShape(CLOSE);
}

// Irregular round blob (used for washes, the eye and pollen).
function blob(x, y, r, n, squash = 1, wobble = 0.2) {
  const pts = [];
  for (let i = 0; i < n; i++) {
    const a = (i * 360) / n;
    const rr = r * (1 + random(-wobble, wobble));
    pts.push([x + cos(a) * rr, y + sin(a) * rr * squash]);
  }
  return pts;
}

// Broad fan-shaped petal with a ruffled rim, opening along angle a.
// 'from' and 'to' (0..1) pick a slice of the fan, for side shading.
function petal(cx, cy, a, len, spread, from = 0, to = 1) {
  const pts = [[cx, cy]];
  const steps = 12;
  for (let i = 0; i <= steps; i++) {
    const f = lerp(from, to, i / steps);
    const u = f * 2 - 1;
    const ruffle = i % 2 ? random(0.9, 0.96) : random(0.99, 1.05);
    const r = len * (1 - 0.4 * u ** 4) * ruffle;
    pts.push([cx + cos(a + u * spread) * r, cy + sin(a + u * spread) * r * 0.9]);
  }
  return pts;
}

// Serrated leaf from its base; side = 1 / -1 gives one half, 0 the whole leaf.
function leaf(x, y, a, len, w, side = 0) {
  const tip = [x + cos(a) * len, y + sin(a) * len];
  const edge = (s) => {
    const pts = [];
    for (let i = 1; i <= 7; i++) {
      const t = i / 8;
      const off = s * w * sin(t * 180) * (i % 2 ? 1 : 0.86);
      pts.push([x + cos(a) * len * t - sin(a) * off, y + sin(a) * len * t + cos(a) * off]);
    }
    return pts;
  };
  if (side !== 0) return [[x, y], ...edge(side), tip];
  return [[x, y], ...edge(1), tip, ...edge(-1).reverse()];
}

// Thin tapered band along a polyline (stems and the staminal column).
function band(path, w0, w1) {
  const left = [];
  const right = [];
  for (let i = 0; i < path.length; i++) {
    const [x, y] = path[i];
    const [nx, ny] = path[Math.min(i + 1, path.length - 1)];
    const [px, py] = path[Math.max(i - 1, 0)];
    const d = Math.hypot(nx - px, ny - py);
    const w = lerp(w0, w1, i / (path.length - 1)) / 2;
    const ox = (-(ny - py) / d) * w;  // unit normal scaled to half-width
    const oy = ((nx - px) / d) * w;
    left.push([x + ox, y + oy]);
    right.push([x - ox, y - oy]);
  }
  return [...left, ...right.reverse()];
}

function draw() {
  translate(-width / 2, -height / 2);
  background('#f6f1e7');
  randomSeed(11);
  brush.noStroke();

  // 1. One soft background wash to sit the flower on.
  paint(blob(300, 310, 220, 14, 0.9, 0.12), PALETTE.wash, 130, 0.3, 0.8, 0.6);

  // 2. Stems: main stalk to the bloom, a branch up to the bud.
  const cx = 255, cy = 250;
  paint(band([[330, 600], [322, 500], [300, 420], [276, 340]], 13, 8), PALETTE.stem, 140, 0.15, 0.6);
  paint(band([[318, 480], [380, 390], [430, 290], [462, 215]], 9, 6), PALETTE.stem, 150, 0.15, 0.6);

  // 3. Leaves: a light wash over the whole leaf, then a shaded half.
  const leaves = [
    [318, 500, 195, 185, 55],
    [322, 470, -30, 170, 48],
    [300, 420, 160, 140, 40],
    [410, 330, 10, 120, 34],
  ];
  for (const [x, y, a, len, w] of leaves) {
    paint(leaf(x, y, a, len, w), PALETTE.leafLight, 120, 0.3, 0.3);
    paint(leaf(x, y, a + 2, len * 0.92, w * 0.9, -1), PALETTE.leafDark, 80, 0.25, 0.3);
  }

  // 4. Bud: a furled peach spiral held by green sepals.
  const bx = 466, by = 180;
  paint([[bx - 28, by + 24], [bx - 24, by - 26], [bx + 4, by - 80], [bx + 26, by - 24], [bx + 28, by + 24]], PALETTE.peach, 160, 0.25, 0.7);
  paint([[bx - 4, by + 22], [bx + 4, by - 74], [bx + 24, by - 20], [bx + 24, by + 22]], PALETTE.coral, 120, 0.2, 0.7);
  paint([[bx - 30, by + 30], [bx - 38, by - 8], [bx - 10, by + 8], [bx, by - 16], [bx + 10, by + 8], [bx + 38, by - 8], [bx + 30, by + 30], [bx, by + 46]], PALETTE.leafDark, 140, 0.2, 0.4);

  // 5. Main bloom: five overlapping petals, each a peach body,
  //    a coral glaze near the throat and a shaded overlap on one side.
  const petals = [];
  for (let k = 0; k < 5; k++) petals.push(-95 + k * 72 + random(-8, 8));
  for (const a of petals) {
    const len = random(165, 190);
    paint(petal(cx, cy, a, len, 40), PALETTE.peach, 165, 0.3, 0.5);
    paint(petal(cx, cy, a + random(-5, 5), len * random(0.6, 0.7), 30), PALETTE.coral, 100, 0.25, 0.5);
    paint(petal(cx, cy, a, len * 0.97, 40, 0, 0.35), PALETTE.rim, 55, 0.2, 0.5);
  }

  // 6. Veins and the dark magenta eye bleeding out from the throat.
  for (const a of petals) {
    const ex = cx + cos(a + random(-6, 6)) * 110;
    const ey = cy + sin(a + random(-6, 6)) * 98;
    paint([[cx - 3, cy], [ex, ey], [cx + 3, cy]], PALETTE.vein, 80, 0.15, 0.2);
  }
  paint(blob(cx, cy, 60, 14, 0.9, 0.2), PALETTE.eye, 130, 0.4, 0.7);
  paint(blob(cx, cy, 40, 12, 0.9, 0.15), PALETTE.eyeDeep, 200, 0.3, 0.7);
  paint(blob(cx, cy, 24, 10, 0.9, 0.12), PALETTE.throat, 230, 0.2, 0.8);
  brush.fill('#2a0410', 230);
  brush.fillBleed(0.1);
  brush.circle(cx, cy, 11, 0);

  // 7. Staminal column arching out, tipped with pollen and stigma pads.
  const tipX = cx + 104, tipY = cy - 92;
  const column = band([[cx, cy], [cx + 40, cy - 30], [cx + 78, cy - 62], [tipX, tipY]], 12, 8);
  paint(column, PALETTE.column, 190, 0.1, 0.5);
  paint(column, PALETTE.column, 150, 0.1, 0.5);  // second pass so it reads over the petal
  for (let i = 0; i < 5; i++) {
    paint(blob(tipX - 20 + random(-16, 16), tipY + 16 + random(-16, 16), 7, 8, 1, 0.1), PALETTE.pollen, 220, 0.2, 1);
  }
  for (let i = 0; i < 3; i++) {
    paint(blob(tipX + 4 + i * 7, tipY - 6 + random(-4, 4), 6, 8, 1, 0.1), PALETTE.stigma, 220, 0.2, 1);
  }

  brush.noFill();
}
