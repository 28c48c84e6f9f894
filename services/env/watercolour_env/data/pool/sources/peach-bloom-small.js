// Small sketch: one peach bloom with a dark eye and a leaf.
function setup() { createCanvas(600, 600, WEBGL); brush.scaleBrushes(1.5); angleMode(DEGREES); noLoop(); }

function draw() {
  translate(-width / 2, -height / 2);
  background('#f6f1e7');
  brush.noStroke();
  brush.fillTexture(0.6, 0.45);
  // Leaf tucked under the bloom.
  brush.fill('#5f9445', 130); brush.fillBleed(0.3);
  brush.beginShape(0.5); brush.vertex(330, 340); brush.vertex(430, 330); brush.vertex(520, 430); brush.vertex(400, 440); brush.endShape(CLOSE);
  // Five-lobed ruffled bloom in one wash.
  brush.fill('#f58d62', 170); brush.fillBleed(0.2);
  brush.beginShape(0.6); for (let i = 0; i < 30; i++) brush.vertex(290 + cos(i * 12) * (125 + 30 * cos(i * 60)), 280 + sin(i * 12) * (115 + 30 * cos(i * 60))); brush.endShape(CLOSE);
  // Deep magenta eye.
  brush.fill('#8a1438', 200); brush.fillBleed(0.2);
  brush.circle(290, 280, 40, 0);
}
