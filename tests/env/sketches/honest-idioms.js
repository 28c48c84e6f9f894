// Ordinary JavaScript the sandbox once refused: methods of the sketch's own objects named eval and
// fetch, a field named pixels, Error subclasses that name themselves (class and ES5 style), toString
// and valueOf on its own prototypes, objects and functions, and date arithmetic with explicit dates.
// Each idiom is checked, and a wrong answer throws: an honest sketch passes with no errors.
const tool = { eval(expression) { return expression * 2; } };

class Net {
  fetch(step) { return step + 1; }
}

const grid = { pixels: [] };

class PaintError extends Error {
  constructor(message) {
    super(message);
    this.name = 'PaintError';
  }
}

function LegacyError(message) {
  this.message = message;
}
LegacyError.prototype = Object.create(Error.prototype);
LegacyError.prototype.constructor = LegacyError;
LegacyError.prototype.name = 'LegacyError';

function Shape(radius) {
  this.radius = radius;
}
Shape.prototype.toString = function () { return 'Shape(' + this.radius + ')'; };
Shape.prototype.valueOf = function () { return this.radius; };

function check(condition, what) {
  if (!condition) throw new Error('idiom failed: ' + what);
}

function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background('#f6f1e7');

  check(tool.eval(3) === 6, 'a method named eval');
  check(new Net().fetch(1) === 2, 'a method named fetch');
  grid.pixels.push(1, 2);
  check(grid.pixels.length === 2 && grid['pixels'][1] === 2, 'a field named pixels');

  try {
    throw new PaintError('too wet');
  } catch (error) {
    check(error.name === 'PaintError' && error instanceof Error && String(error) === 'PaintError: too wet', 'PaintError');
  }
  const legacy = new LegacyError('too dry');
  check(legacy.name === 'LegacyError' && legacy.constructor === LegacyError && String(legacy) === 'LegacyError: too dry',
    'an ES5 error');

  const shape = new Shape(40);
  check(String(shape) === 'Shape(40)' && shape + 2 === 42, 'toString on its own prototype');
  const label = {};
  label.toString = function () { return 'label'; };
  check(`${label}` === 'label' && Object.prototype.hasOwnProperty.call(label, 'toString'), 'toString on its own object');
  const petal = function () { return 1; };
  petal.toString = () => 'petal';
  check(String(petal) === 'petal', 'toString on its own function');
  check(String({}) === '[object Object]' && String(new Shape(1).constructor) !== 'label', 'built-ins unchanged');

  const spring = new Date(2020, 1, 1);
  check(spring.getMonth() === 1 && spring.getFullYear() === 2020, 'an explicit date');
  check(new Date(2020, 1, 29).getDate() === 29 && new Date(2021, 1, 29).getMonth() === 2, 'date arithmetic');
  const start = Date.now();
  let waited = 0;
  while (Date.now() - start < 50) waited += 1;  // a wait on the clock ends
  check(waited > 0 && new Date() instanceof Date && typeof Date() === 'string', 'the clock');

  // Washes as strong as the pool's two-washes.js, so every seed paints well above the blank-canvas threshold.
  brush.noStroke();
  brush.fill('#5e81ac', 200);
  brush.fillBleed(0.3);
  brush.fillTexture(0.6, 0.4);
  brush.beginShape(0.6);
  brush.vertex(150, 150); brush.vertex(450, 170); brush.vertex(430, 450); brush.vertex(160, 430);
  brush.endShape(CLOSE);
  brush.fill('#e07a5f', 220);
  brush.circle(300, 300, 60 + grid.pixels.length * 15, 0.3);
  brush.circle(380, 260, shape.radius * 2, 0.3);
}
