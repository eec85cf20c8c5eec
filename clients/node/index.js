'use strict';
// Stud Engine client library for Node.js: loads the public API from ../../proto with
// @grpc/proto-loader and plays a hand to the end with @grpc/grpc-js.

const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const PROTO_FILE = 'stud/v1/stud_engine.proto';

const VARIANTS = { five: 'VARIANT_FIVE_CARD_STUD', seven: 'VARIANT_SEVEN_CARD_STUD' };

// The generated service definition (int64 as Number: chip counts stay far below 2^53).
function loadStud(protoRoot = PROTO_ROOT) {
  const definition = protoLoader.loadSync(PROTO_FILE, {
    includeDirs: [protoRoot],
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).stud.v1;
}

// A client of stud.v1.StudEngineService on an insecure channel.
function newClient(target, stud = loadStud()) {
  return new stud.StudEngineService(target, grpc.credentials.createInsecure());
}

// One unary call as a promise, with a deadline.
function call(client, method, request, seconds = 10) {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + seconds * 1000);
    client[method](request, { deadline }, (error, response) => {
      if (error) reject(error);
      else resolve(response);
    });
  });
}

// A small seeded PRNG (mulberry32) so a game can be replayed with --seed.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Picks one of the legal actions: checks and calls mostly, sometimes bets or raises, folds
// now and then (never when a check is free).
function chooseAction(legal, random) {
  const free = legal.some((a) => a.type === 'ACTION_TYPE_CHECK');
  const weights = legal.map((a) => {
    if (a.type === 'ACTION_TYPE_FOLD') return free ? 0 : 0.1;
    if (['ACTION_TYPE_CHECK', 'ACTION_TYPE_CALL', 'ACTION_TYPE_BRING_IN'].includes(a.type)) return 1;
    return 0.3;
  });
  let pick = random() * weights.reduce((x, y) => x + y, 0);
  for (let i = 0; i < legal.length; i += 1) {
    pick -= weights[i];
    if (pick < 0) return legal[i];
  }
  return legal[legal.length - 1];
}

// Starts a hand and plays it to the end; returns { hand, start, actions, conserved }.
async function playHand(client, { variant = 'seven', players = 4, stack = 1000, seed = 1, log = () => {} } = {}) {
  const random = rng(seed);
  const start = Array.from({ length: players }, () => stack);
  const request = {
    variant: VARIANTS[variant],
    table: { ante: 5, bring_in: 10, small_bet: 20, big_bet: 40 },
    players: start.map((s, i) => ({ id: `node-${i}`, stack: s })),
    button: Math.floor(random() * players),
  };
  let { hand } = await call(client, 'StartHand', request);
  log(`hand ${hand.hand_id} started, commitment ${hand.deck_commitment.slice(0, 16)}...`);
  let actions = 0;
  while (!hand.over) {
    const seat = hand.to_act;
    const choice = chooseAction(hand.legal_actions, random);
    const act = { state: hand.state, seat, action: choice.type, expected_seq: hand.seq };
    if (choice.type !== 'ACTION_TYPE_FOLD' && choice.type !== 'ACTION_TYPE_CHECK') act.to = choice.to;
    const before = hand.seats[seat].street_name;
    ({ hand } = await call(client, 'Act', act));
    actions += 1;
    const word = choice.type.replace('ACTION_TYPE_', '').toLowerCase().replace('_', '-');
    log(`  [${before}] seat ${seat} ${word}${act.to !== undefined ? ` ${act.to}` : ''}`);
  }
  const total = (xs) => xs.reduce((x, y) => x + Number(y), 0);
  const conserved = total(hand.result.stacks) === total(start);
  return { hand, start, actions, conserved };
}

module.exports = { PROTO_ROOT, VARIANTS, loadStud, newClient, call, rng, chooseAction, playHand };
