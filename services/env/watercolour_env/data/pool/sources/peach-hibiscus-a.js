// The 10-method flower: a peach hibiscus in loose watercolour, painted with only
// scaleBrushes, noStroke, fill, noFill, fillBleed, fillTexture, beginShape, vertex, endShape, circle.
function setup() { createCanvas(600, 600, WEBGL); brush.scaleBrushes(1.5); angleMode(DEGREES); noLoop(); }

// One translucent wash through a list of [x, y] points.
function wash(pts, hex, alpha, bleed, curve) {
  brush.fill(hex, alpha);
  brush.fillBleed(bleed);
  brush.fillTexture(0.55, 0.5);
  brush.beginShape(curve);
  for (const [x, y] of pts) brush.vertex(x, y);
  brush.endShape(CLOSE);
}

// Fan-shaped petal with a ruffled rim, opening along angle a.
function petal(cx, cy, a, len, spread) {
  const pts = [[cx, cy]];
  for (let i = 0; i <= 12; i++) {
    const u = map(i, 0, 12, -1, 1);
    const r = len * (1 - 0.4 * u ** 4) * (i % 2 ? random(0.9, 0.96) : random(0.99, 1.05));
    pts.push([cx + cos(a + u * spread) * r, cy + sin(a + u * spread) * r * 0.88]);
  }
  return pts;
}

// Feathery round blob for the flower's eye (alternating radii).
function blob(x, y, r, n) {
  return Array.from({ length: n }, (_, i) => {
    const rr = r * (i % 2 ? 0.75 : random(0.95, 1.15));
    return [x + cos((i * 360) / n) * rr, y + sin((i * 360) / n) * rr * 0.9];
  });
}

// Pointed leaf from a base point, along angle a.
function leaf(x, y, a, len, w) {
  const side = (s) => Array.from({ length: 7 }, (_, i) => {
    const t = (s > 0 ? i + 1 : 7 - i) / 8, off = s * w * sin(t * 180) * (i % 2 ? 1 : 0.85);
    return [x + cos(a) * len * t - sin(a) * off, y + sin(a) * len * t + cos(a) * off];
  });
  return [[x, y], ...side(1), [x + cos(a) * len, y + sin(a) * len], ...side(-1)];
}

function draw() {
  translate(-width / 2, -height / 2);
  background('#f6f1e7');
  randomSeed(7);
  brush.noStroke();
  const cx = 320, cy = 250;

  // Stem and leaves sit behind the bloom.
  wash([[312, 330], [292, 440], [250, 590], [264, 592], [306, 440], [326, 330]], '#4f7a34', 140, 0.15, 0.6);
  wash(leaf(296, 480, 200, 185, 52), '#6c9c48', 135, 0.3, 0.3);
  wash(leaf(304, 440, -25, 165, 46), '#55883d', 130, 0.3, 0.3);
  wash(leaf(296, 480, 203, 140, 10), '#2f5e2a', 70, 0.2, 0.3);

  // Five overlapping petals: pale peach body, then a warmer coral glaze.
  for (let k = 0; k < 5; k++) {
    const a = -100 + k * 72 + random(-8, 8);
    wash(petal(cx, cy, a, random(160, 185), 40), '#f58d62', 170, 0.3, 0.5);
    wash(petal(cx, cy, a + random(-6, 6), random(105, 130), 30), '#ec6f55', 105, 0.25, 0.5);
  }

  // Darker magenta eye bleeding out from the throat.
  for (let k = 0; k < 5; k++) {
    const a = k * 72 - 100 + random(-10, 10);  // thin veins fanning into each petal
    wash([[cx - 3, cy], [cx + cos(a) * 105, cy + sin(a) * 92], [cx + 3, cy]], '#c9435f', 80, 0.15, 0.2);
  }
  wash(blob(cx, cy, 64, 14), '#a11d45', 150, 0.4, 0.7);
  wash(blob(cx, cy, 44, 12), '#6a0a2c', 200, 0.3, 0.7);
  wash(blob(cx, cy, 26, 10), '#3d0619', 220, 0.2, 0.8);
  brush.fill('#2a0410', 230);
  brush.fillBleed(0.1);
  brush.circle(cx, cy, 12, 0);

  // Staminal column with a few pollen dots.
  wash([[cx - 4, cy], [cx + 88, cy - 84], [cx + 95, cy - 77], [cx + 4, cy + 6]], '#d0506a', 150, 0.1, 0.3);
  for (let i = 0; i < 6; i++) wash(blob(cx + 78 + random(-18, 18), cy - 70 + random(-18, 18), 7, 8), '#eea41c', 230, 0.2, 1);
  wash(blob(cx + 97, cy - 87, 9, 8), '#8a0a26', 230, 0.2, 1);
  brush.noFill();
}
