// Runs after sketch.js handed over its code: runs the sketch's top level, then
// gives p5 a setup and a draw that call the sketch's own with no `this` and no
// arguments (p5 would pass its instance), seed p5's and p5.brush's generators
// before setup, and keep errors inside them from stopping p5, so what was
// painted before a late error is still flushed and read.
"use strict";
(() => {
  const wc = window.__wc;
  delete window.__wc;  // from here on, only closures hold the recorder
  const { config } = wc;
  const { apply } = wc.intrinsics;
  const { describe } = wc;

  let owned = [];
  if (wc.compiled) {
    try {
      owned = apply(wc.compiled, undefined, []);
    } catch (e) {
      wc.error("load", ...describe(e));
    }
  }
  const [userSetup, userDraw] = Array.isArray(owned) ? owned : [];
  if (typeof userSetup === "function") {
    window.setup = async function () {
      randomSeed(config.seed);
      noiseSeed(config.seed);
      wc.inSketch = true;
      try {
        await apply(userSetup, undefined, []);
      } catch (e) {
        wc.error("setup", ...describe(e));
      }
    };
  }
  if (typeof userDraw === "function") {
    wc.hasDraw = true;
    window.draw = async function () {
      try {
        await apply(userDraw, undefined, []);
      } catch (e) {
        wc.error("draw", ...describe(e));
      }
    };
  }
  // p5 starts nothing without a setup or a draw (a syntax error, say): report right away.
  if (typeof window.setup !== "function" && typeof window.draw !== "function") {
    window.addEventListener("load", () => wc.onNoSketch());
  }
})();
