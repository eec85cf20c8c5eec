// stud-table's page: join a table, then show what the server pushes for this seat over a
// WebSocket and send moves with the seat token as a bearer header. The token lives in
// sessionStorage (this tab only) and never in a URL; a new tab of the same browser gets
// the seat (or its tournament entry) back through the HttpOnly resume cookie
// (POST /api/resume). A tournament's page is #t/ID (mtt.js); a tournament player's table
// follows them when they are moved.

import {
  downloadHistory, keepHistory, ordinal, placesOf, renderGame, renderKeptHistories, renderLobbyTables,
  renderTournament, setupOperator,
} from "./rooms.js";
import { renderDeal, setupProof } from "./deal.js";
import { $, fetchJson } from "./dom.js";
import {
  announceMove, closeTournament, loadLobbyTournaments, renderBar, setupTournaments, showTournament,
} from "./mtt.js";
import { renderShowdown } from "./showdown.js";
import { buttonForKey, renderMoves } from "./turn.js";

const RANKS = { T: "10", J: "Jack", Q: "Queen", K: "King", A: "Ace" };
const SUITS = { c: ["♣", "clubs"], d: ["♦", "diamonds"], h: ["♥", "hearts"], s: ["♠", "spades"] };

// {table, seat, token, history}: the seat token and the sitting's history token; a
// tournament player's also {mtt, player, name}, and table null while they sit nowhere
let seat = JSON.parse(sessionStorage.getItem("stud-seat") || "null");
let page = null;        // the newest pushed page
let socket = null;
let retry = 0;
let shownHand = null;   // hand id the narration list belongs to
let clockOffset = 0;    // server time minus local time (ms)

function cardName(code) {
  const rank = RANKS[code[0]] || code[0];
  return `${rank} of ${SUITS[code[1]][1]}`;
}

function cardElement(card) {
  const el = document.createElement("span");
  el.className = "card";
  el.setAttribute("role", "img");
  if (!card.card) {
    el.classList.add("back");
    el.setAttribute("aria-label", "face-down card");
    return el;
  }
  const [symbol] = SUITS[card.card[1]];
  el.textContent = `${card.card[0] === "T" ? "10" : card.card[0]}${symbol}`;
  el.dataset.card = card.card;
  el.setAttribute("aria-label", cardName(card.card) + (card.up ? "" : ", face down"));
  if (!card.up) el.classList.add("down");
  if ("dh".includes(card.card[1])) el.classList.add("red");
  return el;
}

const api = (path, body, method = "POST") => fetchJson(path, { method, body, token: seat?.token });

/** The seat this browser held at a table, else the tournament it is playing (only
 * ``tournament``'s when given), recovered from the resume cookies (or null). */
async function resumeSeat(tournament) {
  try {
    const { seats, tournaments } = await api("/api/resume", tournament ? { tournament } : {});
    if (seats.length) {
      const [found] = seats;
      return { table: found.table, seat: found.seat, token: found.token, history: found.history_token };
    }
    if (!tournaments.length) return null;
    const [entry] = tournaments;
    return { mtt: entry.tournament, player: entry.player, name: entry.name, token: entry.token,
      table: entry.table, seat: entry.seat };
  } catch {
    return null;
  }
}

// ---- lobby -------------------------------------------------------------------------------
async function loadLobby() {
  $("lobby").hidden = false;
  $("table").hidden = true;
  loadLobbyTournaments().catch(() => {});
  renderTables((await api("/api/tables", undefined, "GET")).tables);
  renderKeptHistories();
}
// the list of tables to sit at (the player's choice kept) and the lobby's table of them
function renderTables(tables) {
  const select = $("join-table");
  const chosen = select.value;
  const options = tables.map((t) => {
    const option = document.createElement("option");
    option.value = t.id;
    option.textContent = `${t.name}: ${t.game} (${t.seated}/${t.max_seats} seated, ${t.state})`;
    return option;
  });
  const same = options.length === select.options.length
    && options.every((option, i) => option.isEqualNode(select.options[i]));
  if (!same) {  // (an open list is left alone while nothing in it changes)
    select.replaceChildren(...options);
    if (tables.some((t) => t.id === chosen)) select.value = chosen;
  }
  // no table chosen yet: a click would meet the required field's silent refusal
  $("join-button").disabled = tables.length === 0;
  renderLobbyTables(tables);
}
setupOperator(loadLobby);
// the lobby's lists follow the tables (new ones, seats taken, state) while it is on screen
setInterval(async () => {
  if ($("lobby").hidden) return;
  try {
    renderTables((await api("/api/tables", undefined, "GET")).tables);
    await loadLobbyTournaments();
  } catch {
    // offline for a moment: the next round tries again
  }
}, 5000);

$("join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("lobby-error").textContent = "";
  try {
    const table = $("join-table").value;
    const joined = await api(`/api/tables/${encodeURIComponent(table)}/join`, { name: $("join-name").value });
    seat = { table, seat: joined.seat, token: joined.token, history: joined.history_token };
    sessionStorage.setItem("stud-seat", JSON.stringify(seat));
    keepHistory(table, seat.history);
    openTable();
  } catch (error) {
    $("lobby-error").textContent = error.message;
  }
});

// ---- the table ---------------------------------------------------------------------------
function openTable() {
  $("lobby").hidden = true;
  $("table").hidden = false;
  if (!socket) connect();
}

function saveSeat(value) {
  seat = value;
  sessionStorage.setItem("stud-seat", JSON.stringify(seat));
}

/** The tournament player sits at ``table`` now: the page goes there, same token. */
function follow(table, seatNo, why) {
  if (!seat || seat.table === table) return;
  const first = !seat.table;
  saveSeat({ ...seat, table, seat: seatNo });
  if (first) {
    showPage("");  // the tournament has started: to the table
    return;
  }
  announceMove(seat, why);
  retry = -1;  // the server closes the old table's socket: reconnect at once, to the new one
  if (socket) socket.close();
}

/** A tournament player's token holds no seat here any more: moved (follow), or out. */
async function lostSeat(message) {
  try {
    const me = await api(`/api/tournaments/${encodeURIComponent(seat.mtt)}/me`, undefined, "GET");
    if (me.table) {
      follow(me.table, me.seat, me.moved ? me.moved.why : null);
      return;
    }
  } catch {
    // the tournament page says where they stand
  }
  saveSeat({ ...seat, table: null, seat: null });
  if (socket) socket.close();
  socket = null;
  showPage(`#t/${encodeURIComponent(seat.mtt)}`);
  $("mtt-error").textContent = message || "";
}

/** The page for the address: a tournament's (#t/ID), else the seat's table, else the lobby. */
function route() {
  const match = /^#t\/(.+)$/.exec(location.hash);
  const mtt = match ? decodeURIComponent(match[1]) : (seat && !seat.table ? seat.mtt : null);
  if (mtt) {
    $("lobby").hidden = true;
    $("table").hidden = true;
    showTournament(mtt);
    return;
  }
  closeTournament();
  if (seat && seat.table) openTable();
  else loadLobby();
}
window.addEventListener("hashchange", route);

function showPage(hash) {
  if ((location.hash || "#") === (hash || "#")) route();
  else location.hash = hash;
}
setupTournaments({ seat: () => seat, setSeat: saveSeat, follow, route });

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.addEventListener("open", () => {
    socket.send(JSON.stringify({ type: "hello", table: seat.table, token: seat.token }));
  });
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "table") {
      retry = 0;
      setConnection(true, message.engine);
      render(message);
    } else if (message.type === "moved") {
      follow(message.table, message.seat, message.why);
    } else if (message.type === "gone" || (message.type === "error" && /token/.test(message.error.reason))) {
      if (seat && seat.mtt) lostSeat(message.error.message);
      else leaveToLobby(message.error.message);
    } else if (message.type === "error") {
      $("act-error").textContent = message.error.message;
    }
  });
  const mine = socket;
  socket.addEventListener("close", () => {
    setConnection(false);
    if (!seat || !seat.table || socket !== mine) return;
    retry = Math.min(retry + 1, 6);
    setTimeout(connect, 250 * 2 ** retry);
  });
}

function setConnection(live, engine) {
  const engineUp = !engine || engine.up;
  $("connection").textContent = !live ? "reconnecting…" : (engineUp ? "live" : "game server down");
  $("connection").classList.toggle("live", live && engineUp);
  $("notice").textContent = live && !engineUp ? engine.message : "";
  $("notice").hidden = !(live && !engineUp);
}

function leaveToLobby(message) {
  if (seat) keepHistory(seat.table, seat.history); // the lobby offers it from now on
  seat = null;
  sessionStorage.removeItem("stud-seat");
  if (socket) socket.close();
  socket = null;
  loadLobby();
  $("lobby-error").textContent = message || "";
}

function render(data) {
  page = data;
  clockOffset = data.now - Date.now();
  const { table, hand } = data;
  const stakes = table.stakes;
  $("table-title").textContent = `${table.name}: ${table.game}`;
  $("table-info").textContent =
    `Ante ${stakes.ante}, bring-in ${stakes.bring_in}, bets ${stakes.small_bet}/${stakes.big_bet}. ` +
    (data.you ? `You are ${data.you.name}, seat ${data.you.seat + 1 - (table.first_seat || 0)}.` : "");
  $("table").dataset.table = table.id;
  $("table").dataset.hand = hand ? hand.id : "";
  $("table").dataset.seq = hand ? hand.seq : "";
  $("street").textContent = hand ? (hand.over ? "hand over" : hand.street) : "waiting for players";
  $("pot").textContent = hand && !hand.over ? `Pot ${hand.pot}` : "";
  $("community").replaceChildren();
  if (hand && hand.community_card) {
    $("community").append("Community card: ", cardElement({ card: hand.community_card, up: true }));
  }
  renderSeats(data);
  renderMoves(data, sendMove);
  renderShowdown(hand, cardElement);
  renderAway(data.you);
  renderNarration(hand, data.narration);
  renderGame(table, hand);
  renderTournament(data);
  renderBar(seat);
  renderDeal(data, seat, api);
}

function renderSeats(data) {
  const { seats, hand } = data;
  const places = placesOf(data.tournament);
  $("seats").replaceChildren(...seats.map((s) => {
    const li = document.createElement("li");
    li.className = "seat";
    li.dataset.seat = s.seat;
    if (s.empty) {
      li.classList.add("empty");
      li.textContent = `Seat ${s.seat + 1 - (data.table.first_seat || 0)}: empty`;
      return li;
    }
    const acting = hand && !hand.over && hand.to_act === s.seat;
    li.classList.toggle("you", s.you);
    li.classList.toggle("acting", acting);
    li.classList.toggle("folded", !!s.folded);
    li.classList.toggle("tabled", !!s.tabled);
    const head = document.createElement("div");
    head.className = "seat-head";
    const name = document.createElement("span");
    name.className = "seat-name";
    name.textContent = `${s.name}${s.you ? " (you)" : ""}${s.bot ? " (bot)" : ""}`;
    head.append(name);
    if (hand && hand.button === s.seat) {
      const dealer = document.createElement("span");
      dealer.className = "dealer";
      dealer.textContent = "D";
      dealer.title = "dealer button";
      dealer.setAttribute("aria-label", "dealer button");
      head.append(dealer);
    }
    const money = document.createElement("div");
    money.className = "seat-money";
    money.textContent = `Stack ${s.stack}` + (s.round_bet ? ` · bet ${s.round_bet}` : "");
    const status = document.createElement("div");
    status.className = "status";
    const notes = [];
    if (acting) notes.push("to act");
    if (s.folded) notes.push("folded");
    if (s.all_in) notes.push("all in");
    if (s.tabled) notes.push("hand tabled");
    if (places[s.seat]) notes.push(`finished ${ordinal(places[s.seat])}`);
    if (s.leaving) notes.push("leaving after this hand");
    if (s.away) notes.push("away");
    if (hand && !s.in_hand && !places[s.seat]) notes.push("sitting out this hand");
    status.textContent = notes.join(", ");
    const cards = document.createElement("div");
    cards.className = "cards";
    cards.setAttribute("aria-label", `${s.you ? "Your" : s.name + "'s"} cards`);
    for (const card of s.cards || []) cards.append(cardElement(card));
    li.append(head, money, status, cards);
    return li;
  }));
}

async function sendMove(move, hand) {
  $("act-error").textContent = "";
  for (const button of $("moves").querySelectorAll("button")) button.disabled = true;
  try {
    // the hand's id with its seq: a seq alone could match the next hand's
    const body = { action: move.action, hand: hand.id, seq: hand.seq };
    if (move.to !== undefined) body.to = move.to;
    await api(`/api/tables/${encodeURIComponent(seat.table)}/act`, body);
  } catch (error) {
    // the engine down is the notice's to say (and to clear once a push says it is back)
    if (error.reason === "engine_unavailable") setConnection(true, { up: false, message: error.message });
    else $("act-error").textContent = error.message;
    for (const button of $("moves").querySelectorAll("button")) button.disabled = false;
  }
}

function renderAway(you) {
  const away = !!(you && you.away);
  $("away").hidden = !away;
  $("time-bank").textContent = you && !away ? `Time bank: ${you.time_bank} s` : "";
}

function renderNarration(hand, lines) {
  const list = $("narration");
  const id = hand ? hand.id : null;
  if (id !== shownHand) {
    list.replaceChildren();
    shownHand = id;
  }
  for (const line of lines.slice(list.children.length)) {
    const li = document.createElement("li");
    li.textContent = line;
    list.append(li);
  }
  list.scrollTop = list.scrollHeight;
}

function tick() {
  const hand = page && page.hand;
  const mine = page && page.legal.length > 0;
  if (hand && !hand.over && hand.deadline && mine) {
    const left = Math.max(0, Math.ceil((hand.deadline - (Date.now() + clockOffset)) / 1000));
    $("clock").textContent = hand.on_time_bank ? `Time bank: ${left} s left` : `${left} s left to act`;
    $("clock").classList.toggle("urgent", left <= 5);
  }
  for (const li of $("seats").children) {
    const status = li.querySelector(".status");
    if (status && li.classList.contains("acting") && hand && hand.deadline) {
      const left = Math.max(0, Math.ceil((hand.deadline - (Date.now() + clockOffset)) / 1000));
      status.textContent = `to act (${left} s)`;
    }
  }
}
setInterval(tick, 500);

document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement || event.ctrlKey || event.metaKey || event.altKey) return;
  const match = buttonForKey(event.key);
  if (match) match.click();
});

$("leave").addEventListener("click", async () => {
  try {
    const answer = await api(`/api/tables/${encodeURIComponent(seat.table)}/leave`, {});
    if (answer.left) leaveToLobby("You left the table.");
    else $("act-error").textContent = "You will leave when this hand ends.";
  } catch (error) {
    $("act-error").textContent = error.message;
  }
});

$("history").addEventListener("click", async () => {
  try {
    await downloadHistory(seat.table, seat.history || seat.token);
  } catch (error) {
    $("act-error").textContent = error.message;
  }
});

setupProof(() => seat);

$("add-bot").addEventListener("click", async () => {
  try {
    await api(`/api/tables/${encodeURIComponent(seat.table)}/bots`, { kind: "station" });
  } catch (error) {
    $("act-error").textContent = error.message;
  }
});

$("back").addEventListener("click", async () => {
  try {
    await api(`/api/tables/${encodeURIComponent(seat.table)}/back`, {});
  } catch (error) {
    $("act-error").textContent = error.message;
  }
});

route();  // at once; a seat or tournament entry this browser still holds (a closed tab)
// replaces the lobby; at a tournament's address only that tournament's entry is asked for
const asked = /^#t\/(.+)$/.exec(location.hash);
if (!seat && (!location.hash || asked)) {
  resumeSeat(asked ? decodeURIComponent(asked[1]) : null).then((found) => {
    if (!found || seat) return;
    saveSeat(found);
    if (found.history) keepHistory(found.table, found.history);
    showPage(found.table ? "" : `#t/${encodeURIComponent(found.mtt)}`);  // the seat, else the entry
  });
}
