// An honest sketch in ES5 style, as code models often write it: constructor functions with methods
// on their prototype, borrowed built-in methods, `arguments`, clones made through `this.constructor`,
// a UMD-style `typeof module` guard, and debug strings that look like URL schemes.
var LOG_PREFIX = 'File: hibiscus.js';
var NOTE = 'http: links are not used here';
var DIVIDER = '// ----------------';
var META = { Data: 'none', Blob: 'none', source: 'data: generated below' };

function Petal(angle, length, hue) {
  this.angle = angle;
  this.length = length;
  this.hue = hue;
}

Petal.prototype.tip = function (cx, cy) {
  return [cx + cos(this.angle) * this.length, cy + sin(this.angle) * this.length];
};

Petal.prototype.clone = function (turn) {
  var copy = new this.constructor(this.angle + turn, this.length * 0.92, this.hue);
  copy.kind = this.constructor.name;
  return copy;
};

Petal.prototype.paint = function (cx, cy) {
  var tip = this.tip(cx, cy);
  var side = 0.45 * this.length;
  brush.fill(this.hue, 180);
  brush.fillBleed(0.25);
  brush.beginShape(0.4);
  brush.vertex(cx, cy);
  brush.vertex(cx + cos(this.angle - 24) * side, cy + sin(this.angle - 24) * side);
  brush.vertex(tip[0], tip[1]);
  brush.vertex(cx + cos(this.angle + 24) * side, cy + sin(this.angle + 24) * side);
  brush.endShape(CLOSE);
};

function collect() {
  return Array.prototype.slice.call(arguments).filter(function (item) {
    return Object.prototype.hasOwnProperty.call(item, 'angle');
  });
}

var exported = typeof module !== 'undefined' && module.exports ? module.exports : null;

function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.2);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background('#f7f1e3');
  brush.noStroke();
  var first = new Petal(0, 170, '#d9604c');
  var petals = collect(first, { note: NOTE });
  for (var i = 1; i < 6; i++) {
    petals.push(petals[i - 1].clone(72));
  }
  for (var j = 0; j < petals.length; j++) {
    petals[j].paint(300, 300);
  }
  if (exported === null && petals[5].kind === 'Petal' && LOG_PREFIX && DIVIDER && META.Data) {
    brush.fill('#8e2a1f', 220);
    brush.circle(300, 300, 28, 0.3);
  }
}
