#!/usr/bin/env node
// Team calendar kept in one JSON file.
//
// Actions: create_event, list_events, cancel_event. The file is --store, or
// $TEAM_CALENDAR_FILE; nothing else is read or written. Prints JSON (or text with
// --format text).
'use strict';

const fs = require('fs');
const { parseArgs } = require('util');

const { values: args } = parseArgs({
  options: {
    action: { type: 'string' },
    summary: { type: 'string' },
    start: { type: 'string' },
    duration: { type: 'string', default: '30' },
    attendee: { type: 'string', multiple: true },
    from: { type: 'string' },
    to: { type: 'string' },
    id: { type: 'string' },
    store: { type: 'string' },
    format: { type: 'string', default: 'json' },
    help: { type: 'boolean', short: 'h' },
  },
});

const USAGE = `usage: calendar.js --action create_event|list_events|cancel_event [options]
  create_event  --summary TEXT --start YYYY-MM-DDTHH:MM [--duration MIN] [--attendee EMAIL]...
  list_events   [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--format json|text]
  cancel_event  --id ID
  all actions   [--store FILE]  (default: $TEAM_CALENDAR_FILE)`;

function fail(message, code = 2) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(code);
}

function load(store) {
  if (!fs.existsSync(store)) return { next: 1, events: [] };
  return JSON.parse(fs.readFileSync(store, 'utf8'));
}

function save(store, data) {
  fs.writeFileSync(store, JSON.stringify(data, null, 2) + '\n');
}

function createEvent(data) {
  if (!args.summary || !args.start) fail('create_event needs --summary and --start');
  if (Number.isNaN(Date.parse(args.start))) fail(`--start is not a date: ${args.start}`);
  const minutes = Number.parseInt(args.duration, 10);
  if (!(minutes > 0)) fail('--duration must be a positive number of minutes');
  const event = {
    id: `evt-${data.next}`,
    summary: args.summary,
    start: args.start,
    duration: minutes,
    attendees: args.attendee || [],
  };
  data.next += 1;
  data.events.push(event);
  return { created: event };
}

function listEvents(data) {
  const from = args.from || '0000';
  const to = args.to ? `${args.to}T99` : '9999';
  const events = data.events
    .filter((e) => e.start >= from && e.start <= to)
    .sort((a, b) => a.start.localeCompare(b.start));
  return { events };
}

function cancelEvent(data) {
  if (!args.id) fail('cancel_event needs --id');
  const index = data.events.findIndex((e) => e.id === args.id);
  if (index < 0) fail(`no event ${args.id}`, 1);
  const [removed] = data.events.splice(index, 1);
  return { cancelled: removed };
}

function main() {
  if (args.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const store = args.store || process.env.TEAM_CALENDAR_FILE;
  if (!store) fail('set TEAM_CALENDAR_FILE or pass --store FILE');
  const data = load(store);
  let result;
  switch (args.action) {
    case 'create_event':
      result = createEvent(data);
      save(store, data);
      break;
    case 'list_events':
      result = listEvents(data);
      break;
    case 'cancel_event':
      result = cancelEvent(data);
      save(store, data);
      break;
    default:
      fail(`unknown --action ${args.action}\n${USAGE}`);
  }
  if (args.format === 'text' && result.events) {
    for (const e of result.events) {
      process.stdout.write(`${e.start}  ${e.summary} (${e.duration} min) [${e.id}]\n`);
    }
    return;
  }
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}

main();
