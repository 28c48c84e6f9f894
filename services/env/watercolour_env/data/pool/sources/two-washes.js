// Two washes, strong enough that every seed paints well above the blank-canvas threshold.
function setup() { createCanvas(600, 600, WEBGL); brush.scaleBrushes(1.5); angleMode(DEGREES); noLoop(); }
function draw() {
  translate(-width / 2, -height / 2); background('#f6f1e7');
  brush.noStroke(); brush.fill('#d9653b', 200); brush.fillBleed(0.3); brush.fillTexture(0.6, 0.4);
  brush.beginShape(0.6); brush.vertex(150, 150); brush.vertex(450, 170); brush.vertex(430, 450); brush.vertex(160, 430); brush.endShape(CLOSE);
  brush.fill('#b83b5e', 220); brush.circle(300, 300, 90, 0.3);
}
