function setup() { createCanvas(600, 600, WEBGL); brush.scaleBrushes(1.5); angleMode(DEGREES); noLoop(); }
function draw() {
  translate(-width / 2, -height / 2); background('#f6f1e7');
  brush.noStroke(); brush.fill('#f08a5d', 120); brush.fillBleed(0.3); brush.fillTexture(0.6, 0.4);
  brush.beginShape(0.6); brush.vertex(200, 200); brush.vertex(400, 220); brush.vertex(380, 420); brush.vertex(210, 400); brush.endShape(CLOSE);
  brush.fill('#b83b5e', 150); brush.circle(300, 300, 60, 0.3);
}
