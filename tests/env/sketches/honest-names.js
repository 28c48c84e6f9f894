// An honest sketch whose own names look like browser and p5 names: locals called top, parent and
// self, helpers called set, blend, copy and filter, fields called style, canvas and body; plus
// classes, closures, a generator, destructuring, colours and an async setup.
async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

class Petal {
  constructor(angle, length, style) {
    this.angle = angle;
    this.length = length;
    this.style = style;
    this.canvas = { width: 600 };
    this.body = [];
  }

  *outline(cx, cy) {
    for (let i = 0; i <= 10; i++) {
      const u = map(i, 0, 10, -1, 1);
      const r = this.length * (1 - 0.35 * u * u);
      yield [cx + cos(this.angle + u * 28) * r, cy + sin(this.angle + u * 28) * r];
    }
  }
}

function set(target, key, value) {
  target[key] = value;
  return target;
}

function blend(a, b, t) {
  return lerpColor(color(a), color(b), t).toString('#rrggbb');
}

function copy(points) {
  return points.map(([x, y]) => [x, y]);
}

function filter(points, keep) {
  return points.filter(keep);
}

function wash(points, hex, opacity, bleed) {
  brush.fill(hex, opacity);
  brush.fillBleed(bleed);
  brush.fillTexture(0.5, 0.4);
  brush.beginShape(0.5);
  for (const [x, y] of points) brush.vertex(x, y);
  brush.endShape(CLOSE);
}

function draw() {
  translate(-width / 2, -height / 2);
  background('#f6f1e7');
  brush.noStroke();
  const top = 240;
  const parent = { x: 300, y: top + 40 };
  const self = { petals: 5 };
  palette = ['#f58d62', '#ec6f55'];  // an undeclared global, as sloppy sketches write them
  for (let k = 0; k < self.petals; k++) {
    const petal = set(new Petal(-90 + k * 72, random(150, 175), 'loose'), 'body', []);
    const points = filter(copy([[parent.x, parent.y], ...petal.outline(parent.x, parent.y)]), ([x]) => x > 0);
    wash(points, blend(palette[0], palette[1], k / self.petals), 150, 0.25);
  }
  const { x, y } = parent;
  brush.fill('#8a1438', 190);
  brush.circle(x, y, 36, 0);
}
