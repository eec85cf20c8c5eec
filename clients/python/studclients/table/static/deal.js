// Verifiable deals (docs/stud-table.md, "Verifiable deals"): before a hand is dealt the page
// shows the commitment to the deck's server seed and sends this browser's own entropy
// (crypto.getRandomValues, 32 bytes) for that deal; during the hand it shows the
// commitment and whose entropy went into the deck; once the hand is over a button
// downloads its proof (the hand's history: commitment, server seed, every contribution,
// the deck), which `stud-verify FILE.phh` checks with no server and no key.

import { $ } from "./dom.js";

let sentFor = null;    // the pending deal (its hand id) this page sent entropy for
let mine = null;       // {hand, hex}: the entropy this browser sent
let lastProof = null;  // {table, hand, number}: the newest finished hand with a proof

function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function sendEntropy(seat, pending, api) {
  sentFor = pending.hand;
  const hex = toHex(crypto.getRandomValues(new Uint8Array(32)));
  api(`/api/tables/${encodeURIComponent(seat.table)}/contribute`, { hand: pending.hand, entropy: hex })
    .then(() => {
      mine = { hand: pending.hand, hex };
      $("deal-mine").textContent = `Your browser's entropy for this deal: ${hex}`;
    })
    .catch((error) => {
      $("deal-mine").textContent = `Your entropy was not taken: ${error.message}`;
    });
}

function sourceText(source, you, seats) {
  const bot = seats.some((s) => s.seat === source.seat && s.bot);
  let whose = "entropy from the player's browser";
  if (source.from !== "player") whose = bot ? "entropy drawn by the table (a bot)" : "entropy drawn by the table (none came from the browser in time)";
  return `Seat ${source.seat + 1}, ${source.name}${you === source.seat ? " (you)" : ""}: ${whose}`;
}

/** The deal part of the page for the newest pushed ``data`` (table.js's render). */
export function renderDeal(data, seat, api) {
  const pending = data.deal;
  const hand = data.hand;
  const dealt = hand && hand.deal;
  const you = data.you ? data.you.seat : null;
  const section = $("deal");
  if (pending) {
    section.dataset.phase = "committed";
    $("deal-state").textContent = "The next hand's deck is committed before the deal. Your browser adds its own entropy to it.";
    $("deal-commitment").textContent = pending.commitment;
    $("deal-sources").replaceChildren();
    if (pending.needed && !pending.contributed && sentFor !== pending.hand) sendEntropy(seat, pending, api);
  } else if (dealt) {
    section.dataset.phase = hand.over ? "over" : "dealt";
    $("deal-state").textContent = hand.over
      ? `Hand ${hand.number} is over: its deck is proven by the download below.`
      : `Hand ${hand.number}'s deck was committed before the deal.`;
    $("deal-commitment").textContent = dealt.commitment;
    $("deal-sources").replaceChildren(...dealt.contributions.map((source) => {
      const li = document.createElement("li");
      li.textContent = sourceText(source, you, data.seats);
      li.dataset.seat = source.seat;
      li.dataset.from = source.from;
      return li;
    }));
    if (mine && mine.hand !== hand.id) $("deal-mine").textContent = "";
    if (dealt.proof) lastProof = { table: seat.table, hand: hand.id, number: hand.number };
  } else {
    section.dataset.phase = "";
  }
  section.hidden = !pending && !dealt && !lastProof;
  section.dataset.commitment = $("deal-commitment").textContent;
  $("deal-proof-line").hidden = !lastProof || lastProof.table !== seat.table;
  if (lastProof) $("proof").textContent = `Download the proof of hand ${lastProof.number}`;
}

async function downloadProof(seat) {
  const { table, hand, number } = lastProof;
  const response = await fetch(`/api/tables/${encodeURIComponent(table)}/hands/${hand}/proof`, {
    headers: { Authorization: `Bearer ${seat.history || seat.token}` },
  });
  if (!response.ok) {
    const data = await response.json().catch(() => ({}));
    throw new Error(data.error ? data.error.message : `HTTP ${response.status}`);
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = `${String(number).padStart(4, "0")}-${hand}.phh`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** The proof button; ``currentSeat()`` is the seat the page holds now. */
export function setupProof(currentSeat) {
  $("proof").addEventListener("click", async () => {
    $("deal-error").textContent = "";
    try {
      await downloadProof(currentSeat());
    } catch (error) {
      $("deal-error").textContent = error.message;
    }
  });
}
