#!/usr/bin/env node
// A minimal engine for Sequence Stacks and Sequence (docs/engine-protocol.md).
//
// Node.js alone, no npm packages. It reads one JSON object per line on stdin and
// answers on stdout; anything it wants to say to a person goes to stderr.
//
// Run it at a table:  stacks bot TABLE --engine 'node examples/engines/minimal.js'
// Or measure it:      stacks tournament --engine mini='node examples/engines/minimal.js'

'use strict';
const readline = require('readline');

// Rough preferences by the kind of action (the "type" of each legal action's wire form).
const PREFER = {
  block: 5, steal_chip: 4, play: 2, skip: 1, steal_card: 1, reverse: 0,
  pass_block: 0, discard: -1, end_turn: -1,
  place: 2, remove: 1, dead_card: 3, pass: 0,
};

function score(choice) {
  const action = choice.action;
  let value = PREFER[action.type] ?? 0;
  if (action.type === 'play' && action.pile !== -1) value += 1; // onto an open pile
  return value;
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const message = JSON.parse(line);
  switch (message.type) {
    case 'hello':
      send({ type: 'hello', name: 'minimal-js', author: 'the examples', protocol: 1,
             games: ['stacks', 'sequence'] });
      break;
    case 'game':
      process.stderr.write(`playing ${message.game} in seat ${message.seat + 1}\n`);
      break;
    case 'decide': {
      const best = Math.max(...message.legal.map(score));
      const top = message.legal.filter((choice) => score(choice) === best);
      const pick = top[Math.floor(Math.random() * top.length)];
      send({ type: 'action', request: message.request, id: pick.id });
      break;
    }
    case 'end':
      process.stderr.write(message.won ? 'won\n' : 'lost\n');
      break;
    case 'quit':
    case 'error':
      process.exit(0);
  }
});
