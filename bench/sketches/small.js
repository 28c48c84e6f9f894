// Small sketch: one peach bloom, a dark eye and a leaf.
function setup() { createCanvas(600, 600, WEBGL); brush.scaleBrushes(1.5); angleMode(DEGREES); noLoop(); }

function draw() {
  translate(-width / 2, -height / 2);
  background('#f6f1e7');
  brush.noStroke();
  brush.fillTexture(0.6, 0.45);
  // Leaf, then the bloom as one ruffled wash, then the eye.
  brush.fill('#5f9445', 130); brush.fillBleed(0.3);
  brush.beginShape(0.4); brush.vertex(300, 330); brush.vertex(420, 400); brush.vertex(520, 450); brush.vertex(410, 455); brush.endShape(CLOSE);
  brush.fill('#f58d62', 160); brush.fillBleed(0.35);
  brush.beginShape(0.7); for (let i = 0; i < 10; i++) brush.vertex(300 + cos(i * 36) * (i % 2 ? 120 : 160), 290 + sin(i * 36) * (i % 2 ? 110 : 145)); brush.endShape(CLOSE);
  brush.fill('#8a1438', 200); brush.fillBleed(0.2);
  brush.circle(300, 290, 40, 0);
}
