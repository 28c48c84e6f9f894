// Runs before p5 and p5.brush: seeds Math.random (p5.brush seeds its own PRNG
// from it at load time), records every error, and neuters blocking dialogs.
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

  let resolveFinished;
  const wc = {
    errors: [],          // {phase, kind, message}
    violations: [],      // {code, message}
    brushCalls: {},
    marks: { start: performance.now() },
    finishedFlag: false,
    finished: new Promise((resolve) => { resolveFinished = resolve; }),
    violation(code, message) {
      if (!wc.violations.some((v) => v.code === code && v.message === message)) {
        wc.violations.push({ code, message });
      }
    },
    error(phase, kind, message) {
      wc.errors.push({ phase, kind, message: String(message).slice(0, 500) });
    },
    resolve(value) { resolveFinished(value); },
  };
  Object.defineProperty(window, "__wc", { value: wc, writable: false, configurable: false });

  window.addEventListener("error", (event) => {
    const kind = event.error && event.error.name ? event.error.name : "Error";
    wc.error(wc.marks.setupStart ? "run" : "load", kind, event.message);
  });
  window.addEventListener("unhandledrejection", (event) => {
    const reason = event.reason;
    const kind = reason && reason.name ? reason.name : "Error";
    wc.error("run", kind, reason && reason.message ? reason.message : reason);
  });
  document.addEventListener("securitypolicyviolation", (event) => {
    wc.violation("external_access", `blocked by the sandbox policy: ${event.violatedDirective} ${event.blockedURI}`);
  });
  for (const name of ["alert", "confirm", "prompt", "print", "open"]) {
    window[name] = () => wc.violation("dom_access", `${name}() is not available to sketches`);
  }
})();
