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
  // name -> violation code, from gate_rules.json; without a prototype, so that `constructor` or
  // `valueOf` is not found on Object.prototype.
  const refusedNames = Object.assign(Object.create(null), config.refusedNames);
  // Names the code asks about with `typeof` (page_files.py): when nothing in the world has one,
  // it reads as undefined, as an undeclared name does to typeof in any browser.
  const probedNames = new Set(config.probedNames);
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
        // An overridable built-in (below) keeps its value in our getter: that value is frozen too.
        if (descriptor) stack.push(descriptor.value, descriptor.get, descriptor.set, wc.overridden.get(descriptor.get));
      }
    }
    return root;
  };
  // Temporal is reachable by no name, but `new Date(0).toTemporalInstant()` hands out an Instant, and from
  // it every other kind: all of them are frozen (Temporal itself too, though Temporal.Now stays unreachable).
  // One of each kind is made here and walked too, should a Chromium have the method without the global.
  const temporalKinds = () => {
    if (typeof Date.prototype.toTemporalInstant !== "function") return [];
    const instant = new Date(0).toTemporalInstant();
    const zoned = instant.toZonedDateTimeISO("UTC");
    const date = zoned.toPlainDate();
    return [instant, zoned, date, zoned.toPlainTime(), zoned.toPlainDateTime(), date.toPlainYearMonth(),
      date.toPlainMonthDay(), instant.since(instant)];
  };
  // Intl is out of the world, but its segment lists and their iterators have prototypes of their own.
  const intlKinds = () => {
    if (typeof Intl.Segmenter !== "function") return [];
    const segments = new Intl.Segmenter().segment("");
    return [segments, segments[Symbol.iterator]()];
  };
  const hiddenIntrinsics = [
    function* () {}, async function () {}, async function* () {}, (function* () {})(), (async function* () {})(),
    [][Symbol.iterator](), new Map()[Symbol.iterator](), new Set()[Symbol.iterator](), ""[Symbol.iterator](),
    /x/[Symbol.matchAll](""), Object.getPrototypeOf(Int8Array), Promise.resolve(),
    [].values().map((x) => x), Iterator.from({ next: () => ({ done: true }) }),
    // An error's own `stack` is an accessor whose getter and setter are shared by every error.
    ...Object.values(Object.getOwnPropertyDescriptor(new Error(), "stack") || {}),
    ...temporalKinds(), ...intlKinds(),
  ];
  // RegExp's legacy statics (RegExp.input, $1 ...) would carry library strings to the sketch
  // and let it write them: V8 makes them configurable, so they go before the freeze.
  for (const key of ["input", "$_", "lastMatch", "$&", "lastParen", "$+", "leftContext", "$`", "rightContext", "$'",
    "$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8", "$9"]) {
    delete RegExp[key];
  }
  const builtins = ["Object", "Function", "Array", "Number", "Boolean", "String", "Symbol", "BigInt", "Math", "JSON",
    "Reflect", "Proxy", "Promise", "Date", "RegExp", "Map", "Set", "WeakMap", "WeakSet", "WeakRef", "FinalizationRegistry",
    "ArrayBuffer", "SharedArrayBuffer", "DataView", "Atomics", "Intl", "Iterator", "Error", "AggregateError", "EvalError",
    "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError", "Float32Array", "Float64Array", "Int8Array",
    "Int16Array", "Int32Array", "Uint8Array", "Uint8ClampedArray", "Uint16Array", "Uint32Array", "BigInt64Array",
    "BigUint64Array", "parseInt", "parseFloat", "isNaN", "isFinite",
    // Reachable by no name, but by a path: `new Date(0).toTemporalInstant()`; a `using` declaration whose
    // disposal throws makes a SuppressedError. The disposable stacks are frozen with them.
    "Temporal", "SuppressedError", "DisposableStack", "AsyncDisposableStack"];

  // -- the override mistake: assigning a property that a frozen prototype already has throws in strict
  // mode, so `this.name = 'PaintError'` in an Error subclass, or `Shape.prototype.toString = ...`, would
  // fail. As hardened JavaScript (SES) does, these inherited data properties become accessors before
  // the freeze: the getter gives the built-in value, and the setter gives the object assigned to an own
  // property of its own. On the prototype itself the setter refuses, as the frozen property did: p5
  // and p5.brush never see a sketch's Object.prototype.toString.
  const { defineProperty, getOwnPropertyDescriptor } = Object;
  const errorPrototypes = [EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError, AggregateError,
    window.SuppressedError].filter(Boolean)
    .map((kind) => [kind.prototype, ["constructor", "name", "message"]]);
  const overridable = [
    [Object.prototype, ["constructor", "toString", "toLocaleString", "valueOf", "hasOwnProperty", "isPrototypeOf",
      "propertyIsEnumerable"]],
    [Function.prototype, ["constructor", "toString"]],
    [Array.prototype, ["toString"]],
    [Error.prototype, ["constructor", "name", "message", "toString"]],
    ...errorPrototypes,
  ];
  for (const [prototype, keys] of overridable) {
    for (const key of keys) {
      const descriptor = getOwnPropertyDescriptor(prototype, key);
      if (!descriptor || !("value" in descriptor)) continue;
      const { value } = descriptor;
      const accessors = {
        get() { return value; },
        set(replacement) {
          if (this === prototype) throw new TypeError(`Cannot assign to read only property '${key}' of a built-in prototype`);
          defineProperty(this, key, { value: replacement, writable: true, enumerable: true, configurable: true });
        },
      };
      defineProperty(prototype, key, { get: accessors.get, set: accessors.set, enumerable: descriptor.enumerable,
        configurable: false });
      wc.overridden.set(accessors.get, value);
    }
  }

  // -- the clock: seed and code fix a render, so the sketch's Date is virtual. It starts at the same
  // instant on every render and moves one millisecond each time it is read (a loop that waits on it
  // ends, after as many reads on every run). Dates with explicit arguments are ordinary dates; the
  // page's time zone and locale are fixed too (page_run.py), so their arithmetic is the same everywhere.
  const RealDate = Date;
  const EPOCH = RealDate.UTC(2024, 0, 1);
  let ticks = 0;
  const clock = () => EPOCH + ticks++;
  const construct = Reflect.construct;
  const dateString = RealDate.prototype.toString;
  const VirtualDate = function Date(...args) {
    if (new.target === undefined) return apply(dateString, construct(RealDate, [clock()]), []);
    return construct(RealDate, args.length === 0 ? [clock()] : args, new.target);
  };
  defineProperty(VirtualDate, "length", { value: 7 });
  defineProperty(VirtualDate, "prototype", { value: RealDate.prototype, writable: false });
  VirtualDate.now = () => clock();
  VirtualDate.parse = RealDate.parse;
  VirtualDate.UTC = RealDate.UTC;
  // `new Date(0).constructor` must not hand back the real one, with its real `now`.
  defineProperty(RealDate.prototype, "constructor", { value: VirtualDate });

  // -- values across the boundary --
  const colours = new WeakMap();   // handle -> p5.Color
  const handles = new WeakMap();   // p5.Color -> handle
  const MAX_DEPTH = 4;
  const MAX_ITEMS = 100000;
  const refuse = (what) => { throw new TypeError(`${what}: only numbers, strings, booleans, arrays of them and colours cross into p5`); };
  // One budget of items for a whole call's arguments, and each length read once: a getter
  // that grows an array while it is copied, or one array shared at every depth, cannot outrun it.
  const copyIn = (value, depth, budget) => {
    if (value === null || (typeof value !== "object" && typeof value !== "function")) return value;
    if (colours.has(value)) return colours.get(value);
    if (!isArray(value) || depth >= MAX_DEPTH) return refuse(typeof value === "function" ? "a function" : "an object");
    const length = value.length;
    budget.items -= length;
    if (budget.items < 0) return refuse(`more than ${MAX_ITEMS} items`);
    const copy = [];
    for (let i = 0; i < length; i += 1) copy.push(copyIn(value[i], depth + 1, budget));
    return copy;
  };
  const toLibrary = (value) => copyIn(value, 0, { items: MAX_ITEMS });
  const argsToLibrary = (args) => {
    const budget = { items: MAX_ITEMS };
    return args.map((a) => copyIn(a, 0, budget));
  };
  const handleFor = (colour) => {
    if (!handles.has(colour)) {
      const handle = harden({
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
  const errorKinds = new Map([["TypeError", TypeError], ["RangeError", RangeError], ["ReferenceError", ReferenceError],
    ["SyntaxError", SyntaxError]]);
  const rethrow = (error) => {
    const [kind, message] = wc.describe(error);
    throw new (errorKinds.get(kind) || Error)(message);
  };
  // Arrow functions: not constructible, no `prototype` object to hand out.
  const guarded = (body) => freeze((...args) => {
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
      apply(method, realBrush, argsToLibrary(args));
    });
  }
  const brushTamper = (what) => {
    wc.violation("monkey_patch", `${what} at run time`);
    return false;
  };
  // The target is frozen too, so that nothing in reach is unfrozen; every write still meets a trap first.
  const brush = new Proxy(freeze(methods), {
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
  for (const group of Object.values(world.p5_functions)) {
    for (const name of group) {
      const wrapped = guarded((args) => apply(window[name], window, argsToLibrary(args)));
      entries.set(name, () => wrapped);
    }
  }
  // random(list) picks from the sketch's own list with p5's next number, exactly as p5 does,
  // and hands back the sketch's own element untouched (it never came from p5).
  const random = entries.get("random")();
  const pick = freeze((...args) => {
    if (!isArray(args[0]) || args.length !== 1) return random(...args);
    const list = args[0];
    const length = list.length;
    return list[Math.floor(random() * length)];
  });
  entries.set("random", () => pick);
  for (const name of world.p5_values) {
    entries.set(name, () => {
      const value = window[name];
      return typeof value === "object" || typeof value === "function" ? undefined : value;
    });
  }
  const silent = freeze(() => undefined);
  const quietConsole = freeze({ log: silent, info: silent, warn: silent, error: silent, debug: silent });
  for (const name of world.javascript) {
    const value = name === "console" ? quietConsole : name === "Date" ? VirtualDate : window[name];
    entries.set(name, () => value);
  }
  entries.set("brush", () => brush);

  for (const name of builtins) harden(window[name]);
  for (const value of hiddenIntrinsics) harden(value);
  harden(VirtualDate);

  // -- the scope: every free name of the sketch ends here --
  const own = new Map();   // the sketch's undeclared globals (`x = 1` without let)
  // A p5 or browser name outside the world is a violation, and resolves to an inert
  // function so that the sketch runs on and every further attempt is reported too.
  const inert = freeze(() => undefined);
  const unreachable = (name) => {
    if (probedNames.has(name)) return undefined;
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
