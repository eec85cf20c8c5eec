#!/usr/bin/env node
'use strict';
// Plays one hand against a Stud Engine server and prints the result; exit code 0 when the
// final stacks add up to the starting ones, 1 when they do not, 2 on a call error.
//
//   node play.js --target 127.0.0.1:50051 [--variant five|seven] [--players N] [--seed N] [--json]

const { newClient, playHand, VARIANTS } = require('./index');

function parseArgs(argv) {
  const args = { target: '127.0.0.1:50051', variant: 'seven', players: 4, stack: 1000, seed: 1, json: false };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${flag} needs a value`);
      i += 1;
      return argv[i];
    };
    if (flag === '--target') args.target = value();
    else if (flag === '--variant') args.variant = value();
    else if (flag === '--players') args.players = Number(value());
    else if (flag === '--stack') args.stack = Number(value());
    else if (flag === '--seed') args.seed = Number(value());
    else if (flag === '--json') args.json = true;
    else if (flag === '--help' || flag === '-h') {
      console.log('usage: node play.js --target HOST:PORT [--variant five|seven] [--players N] [--stack N] [--seed N] [--json]');
      process.exit(0);
    } else throw new Error(`unknown argument ${flag}`);
  }
  if (!VARIANTS[args.variant]) throw new Error('--variant must be five or seven');
  if (!Number.isInteger(args.players) || args.players < 2) throw new Error('--players must be 2 or more');
  return args;
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`play.js: ${error.message}`);
    return 2;
  }
  const client = newClient(args.target);
  try {
    const log = args.json ? () => {} : (line) => console.log(line);
    const { hand, start, actions, conserved } = await playHand(client, { ...args, log });
    const { result } = hand;
    if (args.json) {
      console.log(JSON.stringify({
        hand_id: hand.hand_id,
        seq: hand.seq,
        actions,
        pots: result.pots,
        shown: result.shown.map((s) => ({ seat: s.seat, cards: s.cards, description: s.description })),
        start_stacks: start,
        stacks: result.stacks,
        conserved,
      }));
    } else {
      result.pots.forEach((pot, i) => {
        const name = i === 0 ? 'main pot' : `side pot ${i}`;
        const won = pot.winners.map((w, j) => `seat ${w} +${pot.shares[j]}`).join(', ');
        console.log(`${name} ${pot.amount}: ${won}`);
      });
      result.shown.forEach((s) => console.log(`seat ${s.seat} showed ${s.cards.join(' ')}: ${s.description}`));
      console.log(`final stacks: ${result.stacks.join(' ')} (started ${start.join(' ')})`);
      console.log(conserved ? 'chips conserved' : 'CHIPS NOT CONSERVED');
    }
    return conserved ? 0 : 1;
  } catch (error) {
    console.error(`play.js: ${error.code !== undefined ? `gRPC status ${error.code}: ` : ''}${error.details || error.message}`);
    return 2;
  } finally {
    client.close();
  }
}

main().then((code) => { process.exitCode = code; });
