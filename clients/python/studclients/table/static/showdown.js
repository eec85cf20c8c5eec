// The showdown panel: each shown hand with its best five (and in Hi-Lo its low), and each
// pot as it was split: a Hi-Lo pot half by half, the low half's winners and their low.

import { $ } from "./dom.js";

function winText(names, amount, label, what) {
  const verb = names.length === 1 ? "wins" : "win";
  return `${names.join(" and ")} ${verb} ${amount}${label ? ` ${label}` : ""}${what ? ` with ${what}` : ""}`;
}

function potLines(pot, label) {
  if (!pot.low_winners || pot.low_winners.length === 0) {
    return [winText(pot.winners, pot.amount, `from the ${label}`, pot.description)];
  }
  const high = pot.shares.reduce((a, b) => a + b, 0);
  const low = pot.low_shares.reduce((a, b) => a + b, 0);
  return [
    `${label[0].toUpperCase()}${label.slice(1)} of ${pot.amount}, split:`,
    `High half: ${winText(pot.winners, high, "", pot.description)}`,
    `Low half: ${winText(pot.low_winners, low, "", pot.low_description)}`,
  ];
}

function cardsLine(label, cards, cardElement) {
  const span = document.createElement("span");
  span.className = "best";
  span.append(`${label}: `);
  for (const card of cards) span.append(cardElement({ card, up: true }));
  return span;
}

export function renderShowdown(hand, cardElement) {
  const over = !!(hand && hand.over);
  $("showdown").hidden = !over;
  if (!over) {
    $("shown").replaceChildren();
    $("pots").replaceChildren();
    return;
  }
  if (hand.voided) {
    const li = document.createElement("li");
    li.textContent = "This hand was called off: stacks are as they were before it.";
    $("shown").replaceChildren(li);
    $("pots").replaceChildren();
    return;
  }
  $("shown").replaceChildren(...hand.shown.map((s) => {
    const li = document.createElement("li");
    li.className = "shown-hand";
    const title = document.createElement("strong");
    title.textContent = `${s.name}: ${s.description}${s.low_description ? `; ${s.low_description}` : ""}`;
    li.append(title, " ");
    for (const card of s.cards) li.append(cardElement({ card, up: true }));
    if (s.best_five && s.best_five.length) li.append(cardsLine("best five", s.best_five, cardElement));
    if (s.low_best_five && s.low_best_five.length) li.append(cardsLine("low", s.low_best_five, cardElement));
    return li;
  }));
  $("pots").replaceChildren(...hand.pots.flatMap((p, i) => {
    const label = i === 0 ? "main pot" : `side pot ${i}`;
    return potLines(p, label).map((text, j) => {
      const li = document.createElement("li");
      li.textContent = text;
      li.className = j === 0 ? "pot-line" : "pot-half";
      return li;
    });
  }));
}
