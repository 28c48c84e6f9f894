// The 10-method flower: a peach hibiscus in loose watercolour.
// Uses only scaleBrushes, noStroke, fill, noFill, fillBleed, fillTexture,
// beginShape, vertex, endShape and circle from p5.brush.

function setup() { createCanvas(600, 600, WEBGL); brush.scaleBrushes(1.5); angleMode(DEGREES); noLoop(); }

// One translucent wash through a list of [x, y] points.
function wash(pts, hex, alpha, bleed, curve) {
  brush.fill(hex, alpha);
  brush.fillBleed(bleed);
  brush.fillTexture(0.6, 0.45);
  brush.beginShape(curve);
  for (const [x, y] of pts) brush.vertex(x, y);
  brush.endShape(CLOSE);
}

// Fan-shaped petal with a ruffled rim, opening along angle a.
function petal(cx, cy, a, len, spread) {
  const pts = [[cx, cy]];
  for (let i = 0; i <= 10; i++) {
    const u = map(i, 0, 10, -1, 1);
    const r = len * (1 - 0.35 * u ** 4) * random(0.92, 1.05);
    pts.push([cx + cos(a + u * spread) * r, cy + sin(a + u * spread) * r * 0.88]);
  }
  return pts;
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
  wash([[318, 262], [300, 400], [262, 585], [274, 588], [312, 400], [328, 262]], '#5d7d3a', 110, 0.15, 0.5);
  wash(leaf(300, 420, 200, 190, 55), '#7fa35a', 95, 0.3, 0.6);
  wash(leaf(306, 360, -15, 170, 48), '#6f9a4c', 90, 0.3, 0.6);
  wash(leaf(300, 420, 205, 120, 25), '#3f6b32', 60, 0.2, 0.6);

  // Five overlapping petals: pale peach body, then a warmer coral glaze.
  for (let k = 0; k < 5; k++) {
    const a = -100 + k * 72 + random(-8, 8);
    wash(petal(cx, cy, a, random(165, 190), 40), '#f9b48e', 90, 0.35, 0.7);
    wash(petal(cx, cy, a + random(-6, 6), random(95, 125), 30), '#f08a6c', 70, 0.25, 0.7);
  }

  // Darker magenta eye bleeding out from the throat.
  for (let k = 0; k < 5; k++) wash(petal(cx, cy, k * 72 - 64, 62, 30), '#b3245a', 95, 0.2, 0.6);
  brush.fill('#7a1240', 140);
  brush.circle(cx, cy, 22, 0);

  // Staminal column with a few pollen dots.
  wash([[cx - 3, cy], [cx + 70, cy - 62], [cx + 76, cy - 56], [cx + 4, cy + 5]], '#c23b5c', 130, 0.1, 0.3);
  brush.fill('#e8b23a', 150);
  for (let i = 0; i < 5; i++) brush.circle(cx + 70 + random(-12, 12), cy - 62 + random(-12, 12), 5, 0);
  brush.noFill();
}
