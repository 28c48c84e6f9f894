// Runs after p5.brush loaded, before the sketch: every access to `brush` goes
// through a recording proxy, so a method outside the allowlist is a violation
// however the sketch reached it (alias, computed name, ...).
(() => {
  const config = window.__WC_CONFIG;
  const wc = window.__wc;
  const real = window.brush;
  const allowed = new Set(config.allowlist);
  const known = new Set(Object.keys(real));

  const proxy = new Proxy(real, {
    get(target, key) {
      if (typeof key === "symbol") return undefined;
      if (!allowed.has(key)) {
        const code = known.has(key) ? "offlist_brush_method" : "unknown_brush_method";
        wc.violation(code, `brush.${key} was used at run time`);
        throw new TypeError(`brush.${key} is not allowed in this environment`);
      }
      const method = target[key];
      return function (...args) {
        wc.brushCalls[key] = (wc.brushCalls[key] || 0) + 1;
        return method.apply(target, args);
      };
    },
    set(target, key) {
      wc.violation("monkey_patch", `brush.${String(key)} was reassigned at run time`);
      return true;
    },
    defineProperty(target, key) {
      wc.violation("monkey_patch", `brush.${String(key)} was redefined at run time`);
      return true;
    },
    deleteProperty(target, key) {
      wc.violation("monkey_patch", `brush.${String(key)} was deleted at run time`);
      return true;
    },
    setPrototypeOf() {
      wc.violation("monkey_patch", "the prototype of brush was replaced at run time");
      return true;
    },
  });
  Object.defineProperty(window, "brush", { value: proxy, writable: false, configurable: false });

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

  p5.registerAddon((p5Class, fn, lifecycles) => {
    lifecycles.presetup = function () { wc.marks.setupStart = performance.now(); };
    lifecycles.postsetup = function () {
      if (typeof window.draw !== "function") setTimeout(finish, 0);
    };
    lifecycles.postdraw = function () { setTimeout(finish, 0); };
  });
})();
