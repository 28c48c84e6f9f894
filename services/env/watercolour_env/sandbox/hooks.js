// Runs after p5, before p5.brush: our lifecycle hooks are registered first, so
// they still run when p5.brush's own hooks throw (p5 calls hooks in order and
// stops at the first that throws). The readback waits one task, until p5.brush
// has flushed its layers, and reads the canvas p5 itself holds, through the
// toDataURL captured before any other script ran.
"use strict";
(() => {
  const wc = window.__wc;
  const { config, marks } = wc;
  const { apply, now, setTimeout, toDataURL, getContext } = wc.intrinsics;
  let instance = null;  // the p5 instance, as p5 hands it to lifecycle hooks

  // The canvas must be the size we score, on WEBGL.
  const createCanvas = p5.prototype.createCanvas;
  p5.prototype.createCanvas = function (w, h, renderer, ...rest) {
    if (!wc.inSketch) return apply(createCanvas, this, [w, h, renderer, ...rest]);  // p5's own default canvas
    if (w !== config.width || h !== config.height) {
      wc.violation("canvas_size", `createCanvas(${w}, ${h}) at run time; the canvas must be ${config.width}x${config.height}`);
      throw new RangeError(`the canvas must be ${config.width}x${config.height}`);
    }
    if (renderer !== this.WEBGL) {
      wc.violation("canvas_not_webgl", "createCanvas was called without WEBGL at run time");
    }
    return apply(createCanvas, this, [w, h, renderer, ...rest]);
  };

  const readCanvas = () => {
    const canvas = instance && instance.canvas;
    if (!canvas) return { dataUrl: null, canvas: null };
    const before = now();
    let dataUrl = null;
    try { dataUrl = apply(toDataURL, canvas, ["image/png"]); } catch (e) { wc.error("readback", e.name, e.message); }
    marks.readback = now() - before;
    const webgl = Boolean(apply(getContext, canvas, ["webgl2"]) || apply(getContext, canvas, ["webgl"]));
    // The server checks the size and the context from this (renderer.py), not from a page verdict.
    return { dataUrl, canvas: { width: canvas.width, height: canvas.height, webgl } };
  };

  const finish = () => {
    if (wc.finished) return;
    marks.drawEnd = now();
    const { dataUrl, canvas } = readCanvas();
    wc.finish(dataUrl, canvas);
  };
  // Two tasks later: rejection events the sketch's last promises raise are queued as tasks
  // of their own, and must be recorded before the report is made.
  const finishSoon = () => setTimeout(() => setTimeout(finish, 0), 0);
  wc.onNoSketch = finishSoon;

  // A hook that throws (p5.brush's own, on a canvas that is not WEBGL) halts
  // p5 for good: record it and report what exists instead of waiting for the deadline.
  const runLifecycleHook = p5.prototype._runLifecycleHook;
  p5.prototype._runLifecycleHook = async function (name) {
    try {
      return await apply(runLifecycleHook, this, [name]);
    } catch (e) {
      wc.error(name, e && e.name ? e.name : "Error", e && e.message ? e.message : e);
      finishSoon();
      throw e;
    }
  };

  p5.registerAddon((p5Class, fn, lifecycles) => {
    lifecycles.presetup = function () { instance = this; marks.setupStart = now(); };
    lifecycles.postsetup = function () { marks.setupEnd = now(); if (!wc.hasDraw) finishSoon(); };
    // One frame is scored: no later frame runs unwatched after the report.
    lifecycles.postdraw = function () { instance = this; this.noLoop(); finishSoon(); };
  });
})();
