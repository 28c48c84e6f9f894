// An honest sketch that asks about its host before using it, as portable code does: `typeof` on
// names no sketch world has (window, document, require, process, self), object helpers from
// Object (defineProperty, getPrototypeOf, getOwnPropertyDescriptor), classes that clone themselves,
// and comments or strings full of scheme-like text: "https://example.org", 'ws://', `javascript: no`.
const HAS_WINDOW = typeof window !== 'undefined';
const HAS_DOCUMENT = typeof document === 'object';
const IN_NODE = typeof process !== 'undefined' && typeof require === 'function';
const BANNER = `//// palette: ${'data:'} none, ${'blob:'} none ////`;

class Wash {
  constructor(x, y, r, colour) {
    Object.defineProperty(this, 'id', { value: Wash.count++, enumerable: false });
    Object.assign(this, { x, y, r, colour });
  }

  shifted(dx, dy) {
    const Kind = Object.getPrototypeOf(this).constructor;
    return new Kind(this.x + dx, this.y + dy, this.r * 0.9, this.colour);
  }

  paint() {
    brush.fill(this.colour, 200);
    brush.fillTexture(0.4, 0.3);
    brush.circle(this.x, this.y, this.r, 0.25);
  }
}
Wash.count = 0;

function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background('#fbf6ec');
  brush.noStroke();
  const descriptor = Object.getOwnPropertyDescriptor(Wash.prototype, 'paint');
  let wash = new Wash(300, 300, 150, '#3f6fb0');
  for (let i = 0; i < 5; i++) {
    descriptor.value.call(wash);
    wash = wash.shifted(18, -12);
  }
  if (!HAS_WINDOW && !HAS_DOCUMENT && !IN_NODE && BANNER.length > 0) {
    brush.fill('#c8663a', 220);
    brush.circle(240, 380, 60, 0.2);
  }
}
