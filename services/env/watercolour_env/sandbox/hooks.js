// Runs after p5, before p5.brush: our lifecycle hooks are registered first, so
// they still run when p5.brush's own hooks throw (p5 calls hooks in order and
// stops at the first that throws). The readback itself waits one task, until
// p5.brush has flushed its layers onto the canvas.
(() => {
  const config = window.__WC_CONFIG;
  const wc = window.__wc;

  // The canvas must be the size we score, on WEBGL.
  const createCanvas = p5.prototype.createCanvas;
  p5.prototype.createCanvas = function (w, h, renderer, ...rest) {
    if (!wc.inSketch) return createCanvas.call(this, w, h, renderer, ...rest);  // p5's own default canvas
    if (w !== config.width || h !== config.height) {
      wc.violation("canvas_size", `createCanvas(${w}, ${h}) at run time; the canvas must be ${config.width}x${config.height}`);
      throw new RangeError(`the canvas must be ${config.width}x${config.height}`);
    }
    if (renderer !== this.WEBGL) {
      wc.violation("canvas_not_webgl", "createCanvas was called without WEBGL at run time");
    }
    return createCanvas.call(this, w, h, renderer, ...rest);
  };

  // Read the pixels once p5 (and p5.brush's own postdraw flush) finished the
  // first frame. The WEBGL canvas keeps its drawing buffer (p5 sets
  // preserveDrawingBuffer), so reading one task later is safe.
  const finish = () => {
    if (wc.finishedFlag) return;
    wc.finishedFlag = true;
    wc.marks.drawEnd = performance.now();
    try { window.noLoop && window.noLoop(); } catch (e) { /* the sketch may have broken p5 */ }
    const canvas = document.querySelector("canvas");
    let dataUrl = null;
    let canvasInfo = null;
    if (canvas) {
      const before = performance.now();
      try { dataUrl = canvas.toDataURL("image/png"); } catch (e) { wc.error("readback", e.name, e.message); }
      wc.marks.readback = performance.now() - before;
      const gl = canvas.getContext("webgl2") || canvas.getContext("webgl");
      canvasInfo = { width: canvas.width, height: canvas.height, webgl: Boolean(gl) };
      if (!canvasInfo.webgl) wc.violation("canvas_not_webgl", "the canvas is not a WEBGL canvas");
      else if (canvas.width !== config.width || canvas.height !== config.height) {
        wc.violation("canvas_size", `the canvas is ${canvas.width}x${canvas.height} pixels; it must be ${config.width}x${config.height} (pixel density 1)`);
      }
    }
    wc.resolve({
      dataUrl,
      canvas: canvasInfo,
      errors: wc.errors,
      violations: wc.violations,
      brushCalls: wc.brushCalls,
      marks: wc.marks,
    });
  };
  Object.defineProperty(wc, "finish", { value: finish });

  // A hook that throws (p5.brush's own, on a canvas that is not WEBGL) halts
  // p5 for good: record it and report what exists instead of waiting for the deadline.
  const runLifecycleHook = p5.prototype._runLifecycleHook;
  p5.prototype._runLifecycleHook = async function (name) {
    try {
      return await runLifecycleHook.call(this, name);
    } catch (e) {
      wc.error(name, e && e.name ? e.name : "Error", e && e.message ? e.message : e);
      setTimeout(finish, 0);
      throw e;
    }
  };

  p5.registerAddon((p5Class, fn, lifecycles) => {
    lifecycles.presetup = function () { wc.marks.setupStart = performance.now(); };
    lifecycles.postsetup = function () {
      if (typeof window.draw !== "function") setTimeout(finish, 0);
    };
    lifecycles.postdraw = function () { setTimeout(finish, 0); };
  });
})();
