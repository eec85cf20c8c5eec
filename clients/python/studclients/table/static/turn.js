// The player's turn: the move buttons, their keys, keyboard focus kept across pushes, the
// turn announced to screen readers and brought on screen (a phone scrolls to it).

import { $ } from "./dom.js";

// one key per kind of move; a second size of the same kind (the open pair's big bet, a
// raise to the larger total) gets the capital key, as stud-play does
const KEYS = { fold: "f", check: "k", call: "c", bring_in: "b", complete: "m", bet: "b", raise: "r" };

let shownMoves = "";   // the moves (and hand id and seq) the buttons show now
let myTurn = false;

/** Each move's key: the kind's letter, its capital for the next larger size. */
export function moveKeys(legal) {
  const used = new Set();
  return legal.map((move) => {
    const letter = KEYS[move.action];
    const key = used.has(letter) ? letter.toUpperCase() : letter;
    used.add(letter);
    return key;
  });
}

function shortcut(key) {
  return key === key.toUpperCase() && key !== key.toLowerCase() ? `Shift+${key}` : key;
}

/** Rebuilds the buttons only when the moves change, keeping the focused move focused. */
export function renderMoves({ legal, hand }, sendMove) {
  const moves = $("moves");
  const signature = JSON.stringify([hand ? [hand.id, hand.seq] : null, legal]);
  const mine = legal.length > 0;
  if (signature !== shownMoves) {
    const focused = moves.contains(document.activeElement) ? document.activeElement : null;
    const focusKey = focused ? `${focused.dataset.action}:${focused.dataset.to || ""}` : null;
    const keys = moveKeys(legal);
    const buttons = legal.map((move, i) => {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.action = move.action;
      if (move.to !== undefined) button.dataset.to = move.to;
      button.dataset.key = keys[i];
      button.textContent = move.label;
      button.setAttribute("aria-keyshortcuts", shortcut(keys[i]));
      button.title = `${move.label} (key ${keys[i]})`;
      button.addEventListener("click", () => sendMove(move, hand));
      return button;
    });
    moves.replaceChildren(...buttons);
    shownMoves = signature;
    const again = buttons.find((b) => `${b.dataset.action}:${b.dataset.to || ""}` === focusKey)
      || (focused ? buttons[0] : null);
    if (again) again.focus({ preventScroll: true });
  }
  $("turn").classList.toggle("mine", mine);
  $("turn-heading").textContent = mine ? "Your move" : (hand && !hand.over ? "Waiting" : "Between hands");
  if (!mine) $("clock").textContent = "";
  if (mine && !myTurn) startTurn(legal);
  myTurn = mine;
}

function startTurn(legal) {
  $("announce").textContent = `Your move: ${legal.map((m) => m.label).join(", ")}`;
  const box = $("turn").getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight) {
    $("turn").scrollIntoView({ block: "end", behavior: "instant" });
  }
}

/** The button of a pressed key (case counts: Shift picks the larger size). */
export function buttonForKey(key) {
  return [...$("moves").querySelectorAll("button")].find((b) => b.dataset.key === key && !b.disabled);
}
