// Runs first, before p5 and p5.brush: seeds Math.random (p5.brush seeds its own
// PRNG from it at load time), captures every built-in our page code relies on
// before anything else runs, and keeps what the sketch did in this closure.
// The driver reads one thing: `window.__wcReport`, a promise of a JSON string
// made here from the closure's own records (never from an object the page holds).
"use strict";
(() => {
  const config = window.__WC_CONFIG;
  let state = config.seed >>> 0;
  const mulberry32 = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  Object.defineProperty(Math, "random", { value: mulberry32, writable: false, configurable: false });

  // Captured now: later scripts use these, never the (by then frozen) globals' members.
  const intrinsics = Object.freeze({
    apply: Reflect.apply,
    has: Reflect.has,
    freeze: Object.freeze,
    isArray: Array.isArray,
    stringify: JSON.stringify,
    toDataURL: HTMLCanvasElement.prototype.toDataURL,
    getContext: HTMLCanvasElement.prototype.getContext,
    now: performance.now.bind(performance),
    setTimeout: window.setTimeout.bind(window),
  });
  const LIMIT = 200;  // records of each kind; a flood of them is still a failure
  const errors = [];       // {phase, kind, message}
  const violations = [];   // {code, message}
  const brushCalls = Object.create(null);
  const marks = { start: intrinsics.now() };
  let finished = false;
  let resolveReport;
  const report = Object.freeze(new Promise((resolve) => { resolveReport = resolve; }));

  // [kind, message] of anything thrown, read without running sketch code: only a real Error's
  // own data properties are read; anything else is named by its type.
  const describe = (thrown) => {
    if (!(thrown instanceof Error)) return ["Error", typeof thrown === "string" ? thrown : `a thrown ${typeof thrown}`];
    const own = (key) => {
      const d = Reflect.getOwnPropertyDescriptor(thrown, key);
      return d && typeof d.value === "string" ? d.value : undefined;
    };
    const kind = own("name") || (Object.getPrototypeOf(thrown) && Reflect.getOwnPropertyDescriptor(
      Object.getPrototypeOf(thrown), "name")?.value) || "Error";
    return [typeof kind === "string" ? kind : "Error", own("message") || ""];
  };
  const wc = {
    config,
    intrinsics,
    describe,
    marks,
    inSketch: false,
    violation(code, message) {
      const text = String(message).slice(0, 300);
      if (violations.length < LIMIT && !violations.some((v) => v.code === code && v.message === text)) {
        violations.push({ code, message: text });
      }
    },
    error(phase, kind, message) {
      if (errors.length < LIMIT) errors.push({ phase, kind: String(kind).slice(0, 60), message: String(message).slice(0, 500) });
    },
    brushCall(name) { brushCalls[name] = (brushCalls[name] || 0) + 1; },
    get finished() { return finished; },
    // The one way a report leaves the page, once; later records are not reported.
    finish(dataUrl, canvas) {
      if (finished) return;
      finished = true;
      resolveReport(intrinsics.stringify({ dataUrl, canvas, errors, violations, brushCalls, marks }));
    },
  };
  // Our later scripts find `__wc` here; launch.js removes it before any sketch code runs.
  Object.defineProperty(window, "__wc", { value: wc, writable: false, configurable: true });
  Object.defineProperty(window, "__wcReport", { get: () => report, configurable: false });

  const phase = () => (!marks.setupStart ? "load" : !marks.setupEnd ? "setup" : "run");
  window.addEventListener("error", (event) => {
    wc.error(phase(), describe(event.error)[0], event.message);
  });
  window.addEventListener("unhandledrejection", (event) => {
    wc.error(phase(), ...describe(event.reason));
  });
  document.addEventListener("securitypolicyviolation", (event) => {
    wc.violation("external_access", `blocked by the sandbox policy: ${event.violatedDirective} ${event.blockedURI}`);
  });
})();
