"""Every intrinsic a sketch can reach is frozen (docs/sandbox.md, layer 5), found by walking, not listed.

A probe sketch walks, inside a real render, everything it can reach: each name of its world and
`brush`'s methods, their prototypes, every property's value and every accessor's getter and setter;
then values it makes (literals, functions of every kind, iterators and iterator helpers, RegExp
results, errors of every origin and their `stack` accessors, a `using` declaration's
SuppressedError, `new Date(0).toTemporalInstant()`, colour handles, promises ...), and, for three
more rounds, the results of calling every method of each kind of value it has made and every
static of each constructor it has reached, with a few argument lists. An object a call makes anew
each time is the sketch's own; its prototype, and any object two such results share, are not.
The probe paints only when everything shared is frozen, and otherwise throws the paths it found.

Before this test, `new Date(0).toTemporalInstant()` reached Temporal's unfrozen prototypes
(Instant, ZonedDateTime, PlainDate, PlainTime, PlainDateTime, PlainYearMonth, PlainMonthDay,
Duration), `using` reached SuppressedError, and every error's `stack` getter and setter were
unfrozen: 238 objects, under 11 roots.
"""

import json

import pytest

from tests.env.test_sandbox_world import SETUP, codes
from watercolour_env.gate.rules import DATA_DIR

PAINT = "brush.fill('#b83b5e', 200); brush.circle(0, 0, 400);"

PROBE = r"""
const MUTATORS = new Set(["freeze", "seal", "preventExtensions", "defineProperty", "defineProperties", "setPrototypeOf",
  "assign", "captureStackTrace"]);
const isObject = (v) => (typeof v === "object" && v !== null) || typeof v === "function";
const keysOf = (o) => [...Object.getOwnPropertyNames(o), ...Object.getOwnPropertySymbols(o)];
const label = (k) => (typeof k === "symbol" ? `[${k.description}]` : String(k));
const unfrozen = [];
const seen = new Set();    // shared objects found
const queue = [];
const mine = new Set();    // what the probe made: never an intrinsic
const made = [];           // [value, path] whose methods are still to be called
const shared = (v, path) => {
  if (isObject(v) && !seen.has(v) && !mine.has(v)) { seen.add(v); queue.push([v, path]); }
};
// make() twice: two different results are the sketch's own (their prototype and what both share are not);
// the same object twice is shared, unless the receiver was the probe's own.
const make = (maker, path, sharedReceiver = true) => {
  let a, b;
  try { a = maker(); b = maker(); } catch (e) { a = e; try { maker(); } catch (again) { b = again; } }
  for (const r of [a, b]) if (r instanceof Promise) r.catch(() => 0);
  if (!isObject(a)) return;
  if (a === b) { if (sharedReceiver) shared(a, path); return; }
  if (mine.has(a) || mine.size > 40000) return;
  mine.add(a); mine.add(b);
  made.push([a, path]);
  shared(Object.getPrototypeOf(a), `${path}.__proto__`);
  for (const k of keysOf(a)) {
    const da = Object.getOwnPropertyDescriptor(a, k);
    const db = isObject(b) ? Object.getOwnPropertyDescriptor(b, k) : undefined;
    for (const part of ["value", "get", "set"]) {
      if (da && db && isObject(da[part]) && db[part] === da[part]) shared(da[part], `${path}.${label(k)}(${part})`);
    }
  }
};
const drain = () => {
  while (queue.length) {
    const [v, path] = queue.shift();
    if (!Object.isFrozen(v)) unfrozen.push(path);
    shared(Object.getPrototypeOf(v), `${path}.__proto__`);
    for (const k of keysOf(v)) {
      const d = Object.getOwnPropertyDescriptor(v, k);
      shared(d.value, `${path}.${label(k)}`);
      shared(d.get, `${path}.${label(k)}(get)`);
      shared(d.set, `${path}.${label(k)}(set)`);
    }
  }
};
for (const [name, value] of WORLD) shared(value, name);
shared(brush, "brush");
for (const name of BRUSH) shared(brush[name], `brush.${name}`);
function* gen() { yield 1; }
async function af() {}
async function* ag() {}
class K {}
for (const v of [gen, af, ag, K, gen.prototype, af.prototype, ag.prototype, K.prototype]) mine.add(v);
const caught = (f) => { try { f(); } catch (e) { return e; } };
const iterator = Object.getPrototypeOf(Object.getPrototypeOf([].values())).constructor;
const makers = {
  "{}": () => ({}), "[]": () => [], "function": () => function () {}, "arrow": () => () => 0, "class": () => class {},
  "method": () => ({ m() {} }).m, "getter": () => Object.getOwnPropertyDescriptor({ get g() { return 1; } }, "g").get,
  "bound": () => (function () {}).bind(null), "null prototype": () => Object.create(null),
  "gen()": () => gen(), "async()": () => af(), "async arrow": () => async () => 0, "asyncgen()": () => ag(),
  "async iterator": () => ag()[Symbol.asyncIterator](),
  "arguments": function () { return arguments; },
  "arguments.callee": function () { return Object.getOwnPropertyDescriptor(arguments, "callee").get; },
  "regexp": () => /x/g, "exec": () => /(x)/d.exec("x"), "matchAll": () => "xx".matchAll(/x/g), "split": () => "a".split(""),
  "string iterator": () => ""[Symbol.iterator](), "array iterator": () => [][Symbol.iterator](),
  "map iterator": () => new Map().entries(), "set iterator": () => new Set().values(),
  "map helper": () => [].values().map((x) => x), "filter helper": () => [].values().filter((x) => x),
  "flatMap helper": () => [].values().flatMap((x) => [x]), "take": () => [].values().take(1), "drop": () => [].values().drop(1),
  "Iterator.from": () => iterator.from({ next: () => ({ done: true }) }),
  "promise": () => Promise.resolve(), "withResolvers": () => Promise.withResolvers(), "fromAsync": () => Array.fromAsync([]),
  "error": () => new Error("x"), "type error": () => caught(() => null.x), "range error": () => caught(() => new Array(-1)),
  "syntax error": () => caught(() => JSON.parse("{")), "stack overflow": () => caught(function f() { f(); }),
  "aggregate error": () => caught(() => { throw new (Object.getPrototypeOf(RangeError))("x"); }),
  "captureStackTrace": () => { const o = {}; Error.captureStackTrace(o); return o; },
  "using": () => caught(() => { using a = { [Symbol.dispose]() { throw new Error("d"); } }; throw new Error("b"); }),
  "using twice": () => caught(() => {
    using a = { [Symbol.dispose]() { throw new Error("d"); } };
    using b = { [Symbol.dispose]() { throw new Error("e"); } };
  }),
  "date": () => new Date(0), "temporal": () => new Date(0).toTemporalInstant(),
  "typed array": () => new Uint8Array(4), "buffer": () => new Uint8Array(4).buffer, "float64": () => new Float64Array(2),
  "map": () => new Map(), "set": () => new Set(), "weakmap": () => new WeakMap(), "weakset": () => new WeakSet(),
  "groupBy": () => Object.groupBy([1], (x) => x), "mapGroupBy": () => Map.groupBy([1], (x) => x),
  "symbol object": () => Object(Symbol()), "bigint object": () => Object(1n), "number object": () => Object(1),
  "string object": () => Object("s"), "boolean object": () => Object(true), "json": () => JSON.parse('{"a":[1]}'),
  "colour": () => color(10, 20, 30),
};
for (const [name, maker] of Object.entries(makers)) make(maker, name);
drain();
const argumentLists = (self) => { const o = {}; mine.add(o); return [[], ["UTC"], [self], [1], [o], ["2024-01-01"]]; };
const explored = new Map();   // prototype -> how many of its kind had their methods called
const called = new Set();     // constructors whose statics were called
for (let round = 0; round < 4; round += 1) {
  for (const [value, path] of made.splice(0)) {
    const kind = Object.getPrototypeOf(value);
    if ((explored.get(kind) || 0) >= 2) continue;
    explored.set(kind, (explored.get(kind) || 0) + 1);
    const methods = new Map();
    for (let p = value; p; p = Object.getPrototypeOf(p)) {
      for (const k of keysOf(p)) {
        const d = Object.getOwnPropertyDescriptor(p, k);
        if (k !== "constructor" && !methods.has(k) && typeof d.value === "function") methods.set(k, d.value);
      }
    }
    for (const [k, method] of methods) {
      if (MUTATORS.has(k)) continue;
      for (const args of argumentLists(value)) make(() => method.apply(value, args), `${path}.${label(k)}()`, false);
    }
  }
  for (const v of [...seen]) {
    // the Function constructors are refused by the page's policy (a violation of its own): not called
    if (typeof v !== "function" || /Function$/.test(v.name) || called.has(v)) continue;
    called.add(v);
    for (const k of keysOf(v)) {
      const d = Object.getOwnPropertyDescriptor(v, k);
      if (k === "constructor" || MUTATORS.has(k) || typeof d.value !== "function") continue;
      for (const args of argumentLists(v)) make(() => d.value.apply(v, args), `${v.name}.${label(k)}()`);
    }
    for (const args of argumentLists(v)) make(() => new v(...args), `new ${v.name}()`);
  }
  drain();
}
if (seen.size < 500) throw new Error(`the probe reached only ${seen.size} shared objects`);
if (unfrozen.length === 0) { PAINT }
const found = new Set(unfrozen);
const roots = unfrozen.filter((p) => !found.has(p.slice(0, p.lastIndexOf("."))));
for (let i = 0; i < roots.length; i += 4) Promise.reject(new Error(`UNFROZEN ${roots.slice(i, i + 4).join(" | ")}`));
"""


def probe_sketch() -> str:
    world = json.loads((DATA_DIR / "sketch_world.json").read_text())
    allowlist = json.loads((DATA_DIR / "allowlist.json").read_text())["methods"]
    names = [*world["javascript"], *(n for group in world["p5_functions"].values() for n in group), *world["p5_values"]]
    declared = f"const WORLD = [{', '.join(f'[{json.dumps(n)}, {n}]' for n in names)}];\nconst BRUSH = {json.dumps(allowlist)};\n"
    return f"{SETUP}function draw() {{\n{declared}{PROBE.replace('{ PAINT }', '{ ' + PAINT + ' }')}\n}}\n"


async def test_every_intrinsic_in_reach_is_frozen(renderer):
    result = await renderer.render(probe_sketch(), seed=5)
    assert result.status == "passed", result.errors
    assert not result.errors, result.errors


# The reviewer's paths, each written to: every write throws, so the sketch paints only if one got through.
TARGETS = {
    "Temporal.Instant": "const t = new Date(0).toTemporalInstant(); const P = Object.getPrototypeOf(t);",
    "Temporal.ZonedDateTime": "const P = Object.getPrototypeOf(new Date(0).toTemporalInstant().toZonedDateTimeISO('UTC'));",
    "Temporal.PlainDate": (
        "const P = Object.getPrototypeOf(new Date(0).toTemporalInstant().toZonedDateTimeISO('UTC').toPlainDate());"
    ),
    "Temporal.Duration": "const t = new Date(0).toTemporalInstant(); const P = Object.getPrototypeOf(t.since(t));",
    "a Temporal constructor": "const P = Object.getPrototypeOf(new Date(0).toTemporalInstant()).constructor;",
    "SuppressedError": (
        "let s; try { using a = { [Symbol.dispose]() { throw new Error('d'); } }; throw new Error('b'); }"
        " catch (e) { s = e; } const P = s.constructor;"
    ),
    "SuppressedError.prototype": (
        "let s; try { using a = { [Symbol.dispose]() { throw new Error('d'); } }; throw new Error('b'); }"
        " catch (e) { s = e; } const P = Object.getPrototypeOf(s);"
    ),
    "an error's stack getter": "const P = Object.getOwnPropertyDescriptor(new Error('x'), 'stack').get;",
    "an error's stack setter": "const P = Object.getOwnPropertyDescriptor(new Error('x'), 'stack').set;",
}
WRITES = {
    "assigned": "P.fetch = 1;",
    "through the toString setter": "Object.getOwnPropertyDescriptor(Object.prototype, 'toString').set.call(P, () => 'x');",
    "redefined": "Object.defineProperty(P, 'fetch', { value: 1 });",
}


@pytest.mark.parametrize("target", TARGETS)
async def test_a_write_onto_a_reachable_intrinsic_throws(renderer, target):
    tries = "".join(f"try {{ {write} wrote += 1; }} catch (e) {{}}" for write in WRITES.values())
    body = f"{TARGETS[target]} let wrote = 0; {tries} if (wrote > 0) {{ {PAINT} }}"
    result = await renderer.render(f"{SETUP}function draw() {{ {body} }}\n", seed=5)
    assert result.status == "failed", "a write onto a built-in got through"
    assert result.paint_fraction is not None and result.paint_fraction < 0.005


# Frozen, and still usable: honest code that uses them passes the whole gate.
HONEST = (
    "const t = new Date(0).toTemporalInstant(); const d = t.toZonedDateTimeISO('UTC').toPlainDate().add({ days: 3 });"
    "if (d.toString() !== '1970-01-04' || t.since(t).sign !== 0) throw new Error('temporal');"
    "let order = []; { using a = { [Symbol.dispose]() { order.push('a'); } }; order.push('in'); }"
    "if (order.join() !== 'in,a') throw new Error('using');"
    "let s; try { using b = { [Symbol.dispose]() { throw new Error('d'); } }; throw new Error('b'); } catch (e) { s = e; }"
    "if (s.error.message !== 'd' || s.suppressed.message !== 'b') throw new Error('suppressed');"
    "class LateError extends s.constructor { constructor(e, f) { super(e, f, 'late'); this.name = 'LateError'; } }"
    "const late = new LateError(1, 2); if (String(late) !== 'LateError: late') throw new Error('suppressed');"
    "const e = new Error('x'); e.stack = 'mine'; if (e.stack !== 'mine') throw new Error('stack');" + PAINT
)


async def test_frozen_intrinsics_still_work(services):
    sketch = f"{SETUP}function draw() {{ {HONEST} }}\n"
    assert services.pipeline.gate(sketch)[1] == []
    result = await services.renderer.render(sketch, seed=5)
    assert result.status == "passed", (result.violations, result.errors)
    assert not result.errors, result.errors
    assert not codes(result)
