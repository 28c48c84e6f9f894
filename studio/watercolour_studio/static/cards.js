// A painting as a grid card or a strip frame: lazy images, the reward's band as a colour.
import { el, fmt } from "./dom.js";

// The terms come from the server (a card's breakdown, the run's `terms`); only their colours are chosen here.
export const TERM_COLOURS = { gate: "#6b8fb5", length: "#a58bc4", judge: "#c2553d", hps: "#4f8a4b" };

export function picture(item, alt) {
  if (item.image) return el("img", { src: item.image, loading: "lazy", alt, width: 600, height: 600 });
  const why = item.dropped_reason || (item.violations.length ? "gate failed" : "no painting");
  return el("div", { class: "no-painting" }, el("b", {}, why), item.violations.slice(0, 2).join(", "));
}

function bars(breakdown) {
  const terms = Object.keys(breakdown);
  return el(
    "div",
    { class: "bars", title: terms.map((t) => `${t} ${fmt(breakdown[t], 2)}`).join(" · ") },
    terms.map((term) =>
      el("span", {}, el("b", { style: `height:${Math.round((breakdown[term] ?? 0) * 100)}%;background:${TERM_COLOURS[term]}` })),
    ),
  );
}

export function card(item, onOpen) {
  return el(
    "button",
    { class: `card band-${item.band}`, "data-index": item.index, "data-step": item.step, onclick: () => onOpen(item) },
    picture(item, `step ${item.step} rollout ${item.index}`),
    el("div", { class: "facts" }, el("span", { class: "reward" }, fmt(item.reward, 2)), el("span", { class: "muted", title: "rollout and group" }, `#${item.index} · g${item.group}`), bars(item.breakdown)),
    item.violations.length ? el("div", { class: "tags" }, item.violations.map((code) => el("span", { class: "tag" }, code))) : null,
  );
}

export function frame(step, item, onOpen) {
  const caption = item ? `step ${step} · ${fmt(item.reward, 2)}` : `step ${step} · nothing painted`;
  const body = item ? picture(item, `median painting of step ${step}`) : el("div", { class: "no-painting" }, "no painting");
  return el("figure", { "data-step": step, onclick: () => onOpen(step) }, body, el("figcaption", {}, caption));
}
