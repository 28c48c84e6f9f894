// Runs after the sketch defined its functions: seeds p5's and p5.brush's
// generators before setup, and keeps errors inside setup/draw from stopping
// p5, so what was painted before a late error is still flushed and read.
(() => {
  const config = window.__WC_CONFIG;
  const wc = window.__wc;
  const userSetup = window.setup;
  const userDraw = window.draw;
  if (typeof userSetup === "function") {
    window.setup = async function (...args) {
      randomSeed(config.seed);
      noiseSeed(config.seed);
      wc.inSketch = true;
      try {
        await userSetup.apply(this, args);
      } catch (e) {
        wc.error("setup", e && e.name ? e.name : "Error", e && e.message ? e.message : e);
      }
    };
  }
  if (typeof userDraw === "function") {
    window.draw = async function (...args) {
      try {
        await userDraw.apply(this, args);
      } catch (e) {
        wc.error("draw", e && e.name ? e.name : "Error", e && e.message ? e.message : e);
      }
    };
  }
})();

// p5 starts nothing when the sketch defines neither function (a syntax error,
// say): report right away instead of waiting for the deadline.
if (typeof window.setup !== "function" && typeof window.draw !== "function") {
  window.addEventListener("load", () => window.__wc.finish());
}
