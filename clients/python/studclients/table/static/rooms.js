// What a card room adds to the table page: the lobby's list of tables, the operator's form
// that creates tables and sit-and-gos (the operator token stays in this form's field: it
// is never stored), a mixed table's game now and next, a tournament's level, prizes and
// standings (the final standings once it is won), and the download of a player's hand
// histories, at the table and, once the seat is gone, from the lobby.

import { $, fetchJson } from "./dom.js";

export function stakesText(s) {
  return `ante ${s.ante}, bring-in ${s.bring_in}, bets ${s.small_bet}/${s.big_bet}`;
}

export function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.append(td);
  return td;
}

export function renderLobbyTables(tables) {
  $("lobby-tables").tBodies[0].replaceChildren(...tables.map((t) => {
    const row = document.createElement("tr");
    row.dataset.table = t.id;
    cell(row, t.name);
    const game = t.rotation && t.rotation.games ? `${t.game} (mixed: ${t.rotation.games.join(", ")})` : t.game;
    cell(row, game);
    cell(row, stakesText(t.stakes));
    cell(row, `${t.seated}/${t.max_seats}`);
    const level = t.tournament ? `, level ${t.tournament.level} of ${t.tournament.levels}` : "";
    cell(row, `${t.kind === "sit-and-go" ? "sit-and-go, " : ""}${t.state}${level}`);
    return row;
  }));
}

export function renderGame(table, hand) {
  const r = table.rotation;
  let text = "";
  if (r && r.games) {
    text = `Mixed games (${r.games.join(", ")}, ${r.every} hands each). Now: ${r.name}.`;
    if (r.next) {
      const when = r.next.after_hands === 0 ? "from the next hand" : `after ${r.next.after_hands} more hand${r.next.after_hands === 1 ? "" : "s"}`;
      text += ` Next: ${r.next.name} from hand ${r.next.hand} (${when}).`;
    }
  }
  $("game-now").textContent = text;
  $("game-now").hidden = !text;
  $("table").dataset.game = r ? r.name : table.game;
  $("table").dataset.handNumber = hand ? hand.number : "";
}

function nextLevelText(next, now) {
  if (!next) return "This is the last level.";
  const what = `Level ${next.level}: ${stakesText(next.stakes)}`;
  if (next.after_hands !== undefined) {
    return next.after_hands === 0 ? `${what} from the next hand.` : `${what} after ${next.after_hands} more hand${next.after_hands === 1 ? "" : "s"}.`;
  }
  const seconds = Math.max(0, Math.round((next.at - now) / 1000));
  return `${what} in about ${Math.floor(seconds / 60)} min ${seconds % 60} s (from the next hand dealt then).`;
}

export function renderTournament(data) {
  const t = data.tournament;
  $("tournament").hidden = !t;
  // a sit-and-go seats nobody once begun, and its players stay until they bust
  $("add-bot").hidden = !!t && t.status !== "registering";
  $("leave").hidden = !!t && t.status === "running";
  if (!t) return;
  $("table").dataset.tournament = t.status;
  $("table").dataset.level = t.level;
  const status = { registering: `waiting for players (${t.registered}/${t.entrants})`, running: "running", finished: "finished" }[t.status];
  $("tournament-heading").textContent = `Sit-and-go: ${status}`;
  $("level").textContent = `Level ${t.level} of ${t.levels}: ${stakesText(t.stakes)}`;
  $("next-level").textContent = t.status === "running" ? nextLevelText(t.next_level, data.now) : "";
  $("prizes").textContent = `Prize pool ${t.prize_pool}: ` + t.prizes.map((p, i) => `${ordinal(i + 1)} ${p}`).join(", ") + ". Tournament chips: no rake.";
  $("standings-caption").textContent = t.status === "finished" ? "Final standings" : "Standings";
  $("standings").tBodies[0].replaceChildren(...t.standings.map((s) => {
    const row = document.createElement("tr");
    row.dataset.seat = s.seat;
    row.classList.toggle("out", s.place !== null && t.status !== "finished");
    cell(row, s.place === null ? "in" : ordinal(s.place));
    cell(row, s.name);
    cell(row, String(s.chips));
    cell(row, s.prize === null ? "" : String(s.prize));
    return row;
  }));
}

export function placesOf(tournament) {
  const places = {};
  for (const row of tournament ? tournament.standings : []) if (row.place) places[row.seat] = row.place;
  return places;
}

export function ordinal(n) {
  const tail = n % 100 >= 11 && n % 100 <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${tail}`;
}

// ---- the operator's form -----------------------------------------------------------------
function operatorBody() {
  const value = (id) => $(id).value.trim();
  const number = (id) => Number(value(id));
  const games = value("op-games").split(",").map((g) => g.trim()).filter(Boolean);
  const body = {
    id: value("op-id"),
    name: value("op-name") || value("op-id"),
    seats: number("op-seats"),
    stack: number("op-stack"),
    bots: value("op-bots").split(",").map((b) => b.trim()).filter(Boolean),
    verifiable: $("op-verifiable").checked,  // deal tickets and the players' entropy
  };
  if (games.length > 1) {
    body.games = games;
    body.rotate_every = number("op-rotate");
  } else {
    body.game = games[0] || "seven";
  }
  const triple = (text) => text.split("/").map((n) => Number(n.trim()));
  if (value("op-kind") === "sit-and-go") {
    body.tournament = {
      levels: value("op-levels").split(",").filter((l) => l.trim()).map((l) => {
        const [ante, bring_in, small_bet] = triple(l);
        return { ante, bring_in, small_bet };
      }),
      every: number("op-every"),
      unit: value("op-unit"),
      // percent to basis points (the server refuses shares that do not add up to 100 %)
      payouts: value("op-payouts").split(",").map((p) => Math.round(Number(p) * 100)),
      buy_in: number("op-buy-in"),
    };
  } else {
    const [ante, bring_in, small_bet] = triple(value("op-stakes"));
    Object.assign(body, { ante, bring_in, small_bet });
  }
  return body;
}

export function setupOperator(reload) {
  $("operator-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const result = $("operator-result");
    result.textContent = "";
    try {
      const data = await fetchJson("/api/tables", {
        method: "POST", body: operatorBody(), token: $("op-token").value,
      });
      result.textContent = `Created table ${data.table}.`;
      await reload();
    } catch (error) {
      result.textContent = `Not created: ${error.message}`;
    }
  });
}

// ---- a player's hand histories -------------------------------------------------------------
// The history token that comes with a seat downloads that sitting's hands after the seat is
// gone too (left, busted, stood up); it opens nothing else, so this browser keeps it, per
// table, in localStorage until the server says it is spent or expired.
const KEPT = "stud-histories";

function keptHistories() {
  try {
    return JSON.parse(localStorage.getItem(KEPT) || "{}");
  } catch {
    return {};
  }
}

export function keepHistory(table, token) {
  if (!token) return;
  localStorage.setItem(KEPT, JSON.stringify({ ...keptHistories(), [table]: token }));
}

function forgetHistory(table) {
  const kept = keptHistories();
  delete kept[table];
  localStorage.setItem(KEPT, JSON.stringify(kept));
}

export async function downloadHistory(table, token) {
  const response = await fetch(`/api/tables/${encodeURIComponent(table)}/history`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  if (!response.ok) {
    const data = await response.json().catch(() => ({}));
    const error = new Error(data.error ? data.error.message : `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = `stud-table-${table}-history.zip`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// The lobby's "Your hand histories": one button per table this browser has played at.
export function renderKeptHistories() {
  const kept = keptHistories();
  const list = $("kept-histories-list");
  list.replaceChildren(...Object.keys(kept).sort().map((table) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = `Download my hand histories from ${table}`;
    button.dataset.table = table;
    button.addEventListener("click", async () => {
      $("kept-histories-error").textContent = "";
      try {
        await downloadHistory(table, kept[table]);
      } catch (error) {
        $("kept-histories-error").textContent = error.message;
        if (error.status === 401) {
          forgetHistory(table);
          renderKeptHistories();
        }
      }
    });
    item.append(button);
    return item;
  }));
  $("kept-histories").hidden = list.children.length === 0;
}
