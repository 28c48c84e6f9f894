// Runs after p5 and p5.brush, before the sketch: builds the sketch's whole world.
// The sketch's code runs, in strict mode, inside `with (scope)` (see
// page_files.py), so every free name it uses is looked up here and nowhere
// else: the allowed brush methods, the p5 names of data/sketch_world.json, and
// frozen JavaScript built-ins. Every other p5 or browser name is a violation;
// any other name is a plain ReferenceError. Values cross into p5 only as
// numbers, strings, booleans, arrays of them and colour handles, and come
// back the same way, so no object of p5's or p5.brush's ever reaches the sketch.
"use strict";
(() => {
  const wc = window.__wc;
  const { config } = wc;
  const { apply, has, freeze, isArray } = wc.intrinsics;
  const world = config.world;
  const refusedNames = config.refusedNames;  // name -> violation code, from gate_rules.json
  const OwnedNames = ["setup", "draw"];       // the sketch's to define, read back by the launcher

  // -- freeze every JavaScript built-in the sketch can reach (by name or by a literal) --
  const harden = (root) => {
    const seen = new Set();
    const stack = [root];
    while (stack.length) {
      const value = stack.pop();
      if ((typeof value !== "object" && typeof value !== "function") || value === null || seen.has(value)) continue;
      if (value === window || value === document) continue;
      seen.add(value);
      freeze(value);
      stack.push(Object.getPrototypeOf(value));
      for (const key of Reflect.ownKeys(value)) {
        const descriptor = Reflect.getOwnPropertyDescriptor(value, key);
        if (descriptor) stack.push(descriptor.value, descriptor.get, descriptor.set);
      }
    }
  };
  const hiddenIntrinsics = [
    function* () {}, async function () {}, async function* () {}, (function* () {})(), (async function* () {})(),
    [][Symbol.iterator](), new Map()[Symbol.iterator](), new Set()[Symbol.iterator](), ""[Symbol.iterator](),
    /x/[Symbol.matchAll](""), Object.getPrototypeOf(Int8Array), Promise.resolve(),
  ];
  const builtins = ["Object", "Function", "Array", "Number", "Boolean", "String", "Symbol", "BigInt", "Math", "JSON",
    "Reflect", "Proxy", "Promise", "Date", "RegExp", "Map", "Set", "WeakMap", "WeakSet", "WeakRef", "FinalizationRegistry",
    "ArrayBuffer", "SharedArrayBuffer", "DataView", "Atomics", "Intl", "Iterator", "Error", "AggregateError", "EvalError",
    "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError", "Float32Array", "Float64Array", "Int8Array",
    "Int16Array", "Int32Array", "Uint8Array", "Uint8ClampedArray", "Uint16Array", "Uint32Array", "BigInt64Array",
    "BigUint64Array", "parseInt", "parseFloat", "isNaN", "isFinite"];

  // -- values across the boundary --
  const colours = new WeakMap();   // handle -> p5.Color
  const handles = new WeakMap();   // p5.Color -> handle
  const MAX_DEPTH = 4;
  const MAX_ITEMS = 100000;
  const refuse = (what) => { throw new TypeError(`${what}: only numbers, strings, booleans, arrays of them and colours cross into p5`); };
  const toLibrary = (value, depth = 0) => {
    if (value === null || (typeof value !== "object" && typeof value !== "function")) return value;
    if (colours.has(value)) return colours.get(value);
    if (isArray(value) && depth < MAX_DEPTH && value.length <= MAX_ITEMS) {
      const copy = [];
      for (let i = 0; i < value.length; i += 1) copy.push(toLibrary(value[i], depth + 1));
      return copy;
    }
    return refuse(typeof value === "function" ? "a function" : "an object");
  };
  const handleFor = (colour) => {
    if (!handles.has(colour)) {
      const handle = freeze({
        toString: (format) => String(apply(colour.toString, colour, [toLibrary(format)])),
        setAlpha: (v) => { apply(colour.setAlpha, colour, [toLibrary(v)]); },
        setRed: (v) => { apply(colour.setRed, colour, [toLibrary(v)]); },
        setGreen: (v) => { apply(colour.setGreen, colour, [toLibrary(v)]); },
        setBlue: (v) => { apply(colour.setBlue, colour, [toLibrary(v)]); },
      });
      colours.set(handle, colour);
      handles.set(colour, handle);
    }
    return handles.get(colour);
  };
  const Colour = p5.Color;
  const fromLibrary = (value) => {
    if (value === null || (typeof value !== "object" && typeof value !== "function")) return value;
    if (value instanceof Colour) return handleFor(value);
    return undefined;
  };
  // An error raised inside p5 or p5.brush reaches the sketch as a fresh error of the same kind, message only.
  const errorKinds = { TypeError, RangeError, ReferenceError, SyntaxError };
  const rethrow = (error) => {
    const Kind = (error && errorKinds[error.name]) || Error;
    throw new Kind(String(error && error.message ? error.message : error));
  };
  const guarded = (body) => freeze(function (...args) {
    let result;
    try { result = body(args); } catch (error) { rethrow(error); }
    return fromLibrary(result);
  });

  // -- brush: the allowed methods only, recorded; nothing of p5.brush comes back --
  const realBrush = window.brush;
  const brushNames = new Set(Object.keys(realBrush));
  const methods = Object.create(null);
  for (const name of config.allowlist) {
    const method = realBrush[name];
    methods[name] = guarded((args) => {
      wc.brushCall(name);
      apply(method, realBrush, args.map((a) => toLibrary(a)));
    });
  }
  const brushTamper = (what) => {
    wc.violation("monkey_patch", `${what} at run time`);
    return false;
  };
  const brush = new Proxy(methods, {
    get(target, key) {
      if (typeof key === "symbol") return undefined;
      if (key in target) return target[key];
      const code = brushNames.has(key) ? "offlist_brush_method" : "unknown_brush_method";
      wc.violation(code, `brush.${key} was used at run time`);
      throw new TypeError(`brush.${key} is not allowed in this environment`);
    },
    set: (target, key) => brushTamper(`brush.${String(key)} was reassigned`),
    defineProperty: (target, key) => brushTamper(`brush.${String(key)} was redefined`),
    deleteProperty: (target, key) => brushTamper(`brush.${String(key)} was deleted`),
    setPrototypeOf: () => brushTamper("the prototype of brush was replaced"),
    preventExtensions: () => brushTamper("brush was frozen"),
    getPrototypeOf: () => null,
  });

  // -- the names of the world --
  const entries = new Map();   // name -> () => value
  const p5Function = (name, body) => {
    const wrapped = guarded(body);
    entries.set(name, () => wrapped);
  };
  for (const group of Object.values(world.p5_functions)) {
    for (const name of group) p5Function(name, (args) => apply(window[name], window, args.map((a) => toLibrary(a))));
  }
  // random(list) picks from the sketch's own list with p5's next number, exactly as p5 does.
  p5Function("random", (args) => (isArray(args[0]) && args.length === 1
    ? args[0][Math.floor(apply(window.random, window, []) * args[0].length)]
    : apply(window.random, window, args.map((a) => toLibrary(a)))));
  for (const name of world.p5_values) {
    entries.set(name, () => {
      const value = window[name];
      return typeof value === "object" || typeof value === "function" ? undefined : value;
    });
  }
  const silent = freeze(() => undefined);
  const quietConsole = freeze({ log: silent, info: silent, warn: silent, error: silent, debug: silent });
  for (const name of world.javascript) {
    const value = name === "console" ? quietConsole : window[name];
    entries.set(name, () => value);
  }
  entries.set("brush", () => brush);

  for (const name of builtins) harden(window[name]);
  for (const value of hiddenIntrinsics) harden(value);

  // -- the scope: every free name of the sketch ends here --
  const own = new Map();   // the sketch's undeclared globals (`x = 1` without let)
  // A p5 or browser name outside the world is a violation, and resolves to an inert
  // function so that the sketch runs on and every further attempt is reported too.
  const inert = freeze(() => undefined);
  const unreachable = (name) => {
    const code = refusedNames[name] || (has(window, name) ? "offlist_name" : null);
    if (!code) throw new ReferenceError(`${name} is not defined`);
    wc.violation(code, `${name} is not available to sketches`);
    return inert;
  };
  const scope = new Proxy(Object.create(null), {
    has: () => true,
    get(target, name) {
      if (typeof name === "symbol") return undefined;  // Symbol.unscopables: nothing is unscopable
      if (own.has(name)) return own.get(name);
      if (entries.has(name)) return entries.get(name)();
      if (OwnedNames.includes(name)) return undefined;
      return unreachable(name);
    },
    set(target, name, value) {
      if (typeof name === "symbol") return false;
      if (entries.has(name)) {
        wc.violation("monkey_patch", `assigning to ${name} changes the environment`);
        return false;
      }
      own.set(name, value);
      return true;
    },
    getOwnPropertyDescriptor: () => undefined,
    defineProperty: () => false,
    deleteProperty: () => false,
    ownKeys: () => [],
    getPrototypeOf: () => null,
    setPrototypeOf: () => false,
  });

  // sketch.js hands its code here, wrapped as `function (scope) { with (scope) { return function () {...} } }`.
  wc.sketch = (wrapped) => {
    if (wc.compiled) return;
    wc.compiled = apply(wrapped, undefined, [scope]);
  };
})();
