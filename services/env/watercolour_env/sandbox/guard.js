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

})();
