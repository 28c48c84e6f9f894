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
  // Everything a sketch can make this page hold is bounded here, where it is made: records of each
  // kind, the length of every text, and the texts made well-formed (a lone surrogate would make
  // the report invalid JSON). What is cut is counted and reported.
  const LIMIT = 200;
  const wellFormed = String.prototype.toWellFormed;
  const text = (value, length) => {
    const string = typeof value === "object" || typeof value === "function" ? `a ${typeof value}` : String(value);
    return intrinsics.apply(wellFormed, string.slice(0, length), []);
  };
  // The verdict depends on an error's phase and kind only (render/late_errors.py), so the first
  // error of each phase and built-in kind is kept even past the limit: a flood hides none of them.
  const KINDS = new Set(["Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError",
    "AggregateError"]);
  const errors = [];       // {phase, kind, message}
  const firstOfKind = new Set();
  const violations = [];   // {code, message}
  const dropped = { errors: 0, violations: 0 };
  const brushCalls = Object.create(null);
  const marks = { start: intrinsics.now() };
  let finished = false;
  let resolveReport;
  const report = Object.freeze(new Promise((resolve) => { resolveReport = resolve; }));

  // A built-in's data property that world.js made overridable is an accessor whose getter is ours:
  // getter -> the built-in value, read here without calling anything.
  const overridden = new WeakMap();
  const dataValue = (object, key) => {
    const d = Reflect.getOwnPropertyDescriptor(object, key);
    if (!d) return undefined;
    return "value" in d ? d.value : overridden.get(d.get);
  };
  // [kind, message] of anything thrown, read without running sketch code: only a real Error's
  // own data properties are read; anything else is named by its type.
  const describe = (thrown) => {
    if (!(thrown instanceof Error)) return ["Error", typeof thrown === "string" ? thrown : `a thrown ${typeof thrown}`];
    const own = (key) => {
      const value = dataValue(thrown, key);
      return typeof value === "string" ? value : undefined;
    };
    const prototype = Object.getPrototypeOf(thrown);
    const kind = own("name") || (prototype && dataValue(prototype, "name")) || "Error";
    return [typeof kind === "string" ? kind : "Error", own("message") || ""];
  };
  const wc = {
    config,
    intrinsics,
    describe,
    overridden,
    marks,
    inSketch: false,
    violation(code, message) {
      const said = text(message, 300);
      if (violations.some((v) => v.code === code && v.message === said)) return;
      if (violations.length < LIMIT) violations.push({ code, message: said });
      else dropped.violations += 1;
    },
    error(phase, kind, message) {
      const named = text(kind, 60);
      const key = `${phase}:${KINDS.has(named) ? named : "other"}`;
      if (errors.length < LIMIT || !firstOfKind.has(key)) {
        firstOfKind.add(key);
        errors.push({ phase, kind: named, message: text(message, 500) });
      } else {
        dropped.errors += 1;
      }
    },
    brushCall(name) { brushCalls[name] = (brushCalls[name] || 0) + 1; },
    get finished() { return finished; },
    // The one way a report leaves the page, once; later records are not reported.
    finish(dataUrl, canvas) {
      if (finished) return;
      finished = true;
      resolveReport(intrinsics.stringify({ dataUrl, canvas, errors, violations, dropped, brushCalls, marks }));
    },
  };
  // Our later scripts find `__wc` here; launch.js removes it before any sketch code runs.
  Object.defineProperty(window, "__wc", { value: wc, writable: false, configurable: true });
  Object.defineProperty(window, "__wcReport", { get: () => report, configurable: false });

  // Recorded here, and marked handled so that Chromium does not also send each one to the driver:
  // a flood of errors, or one of forty million characters, would otherwise be copied out whole.
  const phase = () => (!marks.setupStart ? "load" : !marks.setupEnd ? "setup" : "run");
  window.addEventListener("error", (event) => {
    event.preventDefault();
    wc.error(phase(), describe(event.error)[0], event.message);
  });
  window.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    wc.error(phase(), ...describe(event.reason));
  });
  document.addEventListener("securitypolicyviolation", (event) => {
    wc.violation("external_access", `blocked by the sandbox policy: ${event.violatedDirective} ${event.blockedURI}`);
  });
})();
